// A call that met an upstream needing the caller's own account (strategy `user-account`,
// docs/user-accounts.md) sends its user to the login, as the client can be reached: a
// sessionful client that declared URL elicitation is asked on the call's stream
// (`elicitation/create` in URL mode), the call waits for the login and is sent again, and
// the client hears `notifications/elicitation/complete`; any other client gets MCP's
// URLElicitationRequiredError (-32042; -32021 for a 2026-07-28 client) carrying the login, to
// open and call again. The one place every named call's login is decided (upstream_calls).
#pragma once

#include "gateway/accounts/account_desk.hpp"
#include "gateway/mcp/client_capabilities.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "protocol/json_rpc.hpp"

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>

namespace gate::gateway {

class client_input;

// gate's requestState of a 2026-07-28 call it sent to a login: "gate.login:" and the login's
// id. A retry carrying it is the call again: the state and its inputResponses (the URL
// elicitation's accept) are gate's, never the upstream's, and are taken off the params here.
// Returns the login's id ("" for any other request) and whether the user declined or cancelled
// it (the call is then answered at once, never held for a login nobody will finish).
struct login_retry {
    std::string id;
    bool declined = false;
};
login_retry take_login_retry(protocol::message& msg);

class account_logins {
public:
    // How long a call waits for its user to finish the login it was sent to.
    static constexpr auto login_wait = std::chrono::minutes(10);

    account_logins(accounts::account_desk& accounts, client_input& input,
                   client_capabilities& clients)
        : accounts_(&accounts), input_(input), clients_(clients) {}
    // Where the accounts are asked from now on: another io thread's keeper (an account_relay).
    void ask(accounts::account_desk& accounts) { accounts_ = &accounts; }

    // Whether the caller holds a fresh token at `upstream` (a user-account one): the call
    // then goes without keeping its params for a second sending (the common call copies
    // nothing); without one, a login is likely and the call keeps them.
    bool holds_token(request_context& rec, std::size_t upstream);

    enum class outcome { send_again, answered, unchanged };
    // `f` (needs_login) at `upstream`: send_again when the login finished while the call
    // waited (only when `can_send_again`: the call kept its params); answered when rec holds
    // the call's answer; unchanged when no login applies (no verified caller).
    boost::asio::awaitable<outcome> send_to_login(request_context& rec, std::size_t upstream,
                                                  const upstream_failure& f, bool can_send_again);

private:
    accounts::account_desk* accounts_;
    client_input& input_;
    client_capabilities& clients_;
};

} // namespace gate::gateway
