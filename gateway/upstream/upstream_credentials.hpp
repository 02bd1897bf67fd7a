// The credential header each request to an upstream carries (spec: Upstream credential
// strategies): none, gate's own (a static secret, a client-credentials token from the
// upstream's token endpoint), or the caller's (passthrough: its token as it came;
// token-exchange: its token exchanged). Per-caller credentials come from the caller of the
// session a request goes on; gate's own traffic at such an upstream (probes, the root session)
// carries none, and the upstream's 401 is not held against it.
#pragma once

#include "config/model.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_credential.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace gate::gateway {

class user_tokens;
class upstream_siblings;

class upstream_credentials {
public:
    upstream_credentials(boost::asio::any_io_executor ex, const config::upstream& cfg);

    // Whether the upstream takes each caller's own credential (passthrough, token-exchange).
    bool per_caller() const { return per_caller_; }
    // The header line ("Authorization: Bearer ...", no line end; "" for none) for a request
    // on a session of `caller` (null: gate's own), or why there is none: its token endpoint
    // failed, which is not the upstream's fault.
    boost::asio::awaitable<std::variant<std::string, upstream_failure>>
    line(const caller_credential* caller);
    // The same where no token endpoint is asked; nullopt where line must be awaited.
    std::optional<std::variant<std::string, upstream_failure>>
    line_now(const caller_credential* caller) const;

    // user-account: where each user's tokens are kept (set when the client is wired; until
    // then every caller needs a login).
    void keep_accounts_in(user_tokens* accounts) { accounts_ = accounts; }
    // The upstream refused `caller`'s token, sent as `line` (401): a user-account token is
    // forgotten, unless it was replaced since.
    void token_refused(const caller_credential& caller, std::string_view line);
    bool user_account() const { return user_account_; }
    // The clients of the same entry on the other io threads: the first to join keeps the
    // tokens gate fetches there, and the others ask it (upstream_credential::ask_through).
    void share_among(upstream_siblings& siblings, boost::asio::any_io_executor ex);

private:
    const config::upstream& cfg_;
    bool per_caller_;
    bool user_account_;
    user_tokens* accounts_ = nullptr;
    std::shared_ptr<upstream_credential> source_; // null: the upstream takes none of gate's
};

} // namespace gate::gateway
