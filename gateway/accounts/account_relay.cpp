#include "gateway/accounts/account_relay.hpp"

#include "transport/io/answered_on.hpp"

#include <boost/asio/post.hpp>
#include <memory>
#include <spdlog/spdlog.h>

namespace gate::gateway::accounts {

namespace asio = boost::asio;

namespace {

// What the keeper's thread reads of a call: its own copies, never the caller's (a reload may
// replace the caller's upstream while the keeper works).
struct asked {
    std::shared_ptr<const config::upstream> upstream;
    caller_credential caller;
};

asked copies_of(const config::upstream& u, const caller_credential& caller) {
    return {std::make_shared<const config::upstream>(u), caller};
}

} // namespace

std::optional<std::string> account_relay::line_now(const config::upstream& u,
                                                   const caller_credential& caller) {
    return keeper_.vault().fresh_line(u.id, caller.issuer, caller.subject, wall_clock::now());
}

asio::awaitable<std::variant<std::string, credential_failure>>
account_relay::line(const config::upstream& u, const caller_credential& caller) {
    if (auto known = line_now(u, caller))
        co_return std::move(*known);
    using answer = std::variant<std::string, credential_failure>;
    credential_failure failed{"the account of this user at upstream " + u.id +
                              " could not be read"};
    co_return co_await transport::answered_on<answer>(
        keeper_thread_,
        [keeper = &keeper_, a = copies_of(u, caller)] {
            return keeper->line(*a.upstream, a.caller);
        },
        answer(std::move(failed)));
}

void account_relay::refused(const config::upstream& u, const caller_credential& caller,
                            std::string_view line) {
    asio::post(keeper_thread_,
               [keeper = &keeper_, a = copies_of(u, caller), line = std::string(line)] {
                   try {
                       keeper->refused(*a.upstream, a.caller, line);
                   } catch (const std::exception& e) { // never out of the keeper's loop
                       spdlog::warn("a refused token at upstream {} was not forgotten: {}",
                                    a.upstream->id, e.what());
                   }
               });
}

asio::awaitable<std::variant<login_offer, std::string>>
account_relay::offer_login(const config::upstream& u, const caller_credential& caller,
                           std::string request_id, std::string extra_scope) {
    using answer = std::variant<login_offer, std::string>;
    co_return co_await transport::answered_on<answer>(
        keeper_thread_,
        [keeper = &keeper_, a = copies_of(u, caller), id = std::move(request_id),
         scope = std::move(extra_scope)] {
            return keeper->offer_login(*a.upstream, a.caller, id, scope);
        },
        answer("the login could not be started"));
}

asio::awaitable<bool> account_relay::finished(const std::string& id,
                                              std::chrono::steady_clock::duration bound) {
    co_return co_await transport::answered_on<bool>(
        keeper_thread_, [keeper = &keeper_, id, bound] { return keeper->finished(id, bound); },
        false);
}

} // namespace gate::gateway::accounts
