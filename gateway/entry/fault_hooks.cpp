#include "gateway/entry/fault_hooks.hpp"

#include "gateway/pipeline/answers.hpp"

#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace http = boost::beast::http;

std::optional<transport::http_reply> run_fault_hook(const federation_view& live,
                                                    const actors::supervisor_actor& supervisor,
                                                    http::verb verb, std::string_view path) {
    constexpr std::string_view kill = "/_test/kill-upstream-actor/";
    if (verb == http::verb::post && path == "/_test/kill-supervisor" && supervisor) {
        spdlog::warn("fault hook: killing the supervisor");
        caf::anon_send_exit(supervisor, caf::exit_reason::kill);
        return transport::http_reply::json(http::status::accepted, R"({"killed":"supervisor"})");
    }
    if (verb == http::verb::post && path == "/_test/kill-breaker-actor") {
        // Every board names the one breaker actor; with no upstream there is none to kill.
        auto breaker = live.size() == 0 ? actors::breaker_actor{} : live.board(0)->breaker();
        if (!breaker)
            return error_reply(
                {gateway_error::fault_target_idle,
                 protocol::gateway_error_text(gateway_error::fault_target_idle, {"breaker"})});
        spdlog::warn("fault hook: killing the breaker actor");
        caf::anon_send_exit(breaker, caf::exit_reason::kill);
        return transport::http_reply::json(http::status::accepted, R"({"killed":"breaker"})");
    }
    if (verb != http::verb::post || !path.starts_with(kill))
        return std::nullopt;
    auto id = std::string(path.substr(kill.size()));
    auto upstream = live.index_of(id);
    if (!upstream)
        return error_reply(
            {gateway_error::fault_target_unknown,
             protocol::gateway_error_text(gateway_error::fault_target_unknown, {id})});
    auto actor = live.board(*upstream)->actor();
    if (!actor)
        return error_reply({gateway_error::fault_target_idle,
                            protocol::gateway_error_text(gateway_error::fault_target_idle, {id})});
    spdlog::warn("fault hook: killing the actor of upstream {}", id);
    caf::anon_send_exit(actor, caf::exit_reason::kill);
    return transport::http_reply::json(http::status::accepted,
                                       boost::json::serialize(boost::json::object{{"killed", id}}));
}

} // namespace gate::gateway
