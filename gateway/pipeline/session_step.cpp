// The entry's session step: a message answered within a session (not a 2026-07-28 request,
// nor the initialize that opens one) names a session of its caller, known here or adopted
// from the fleet's store, and a protocol revision gate speaks. Refusals are audited under the
// message's method (`http` for a client's answer), requests and notifications alike; the
// session is marked used, and held in use while the message is answered (it is then neither
// expired nor evicted to make room for another: gateway/mcp/session_shares).
#include "gateway/pipeline/answers.hpp"
#include "gateway/pipeline/entry_steps.hpp"
#include "protocol/protocol_versions.hpp"

namespace gate::gateway::pipeline {

namespace {

class session final : public entry_step {
public:
    explicit session(session_directory& sessions) : sessions_(sessions) {}

    step run(request_context& ctx, arrival& a) override {
        a.session = header_value(a.req, "Mcp-Session-Id");
        if (a.session.empty())
            return refused(ctx, a, gateway_error::session_required);
        auto here = sessions_.use_now(a.session, ctx.who.caller);
        if (here.found == session_directory::session_found::ask_store)
            return ask(ctx, a);
        if (here.found == session_directory::session_found::refused)
            return refused(ctx, a, gateway_error::session_unknown);
        return settle(ctx, a, std::move(here.call));
    }

private:
    boost::asio::awaitable<verdict> ask(request_context& ctx, arrival& a) {
        bool known = co_await sessions_.known(a.session, ctx.who.caller, ctx.admission.peer);
        auto held = known ? sessions_.use(a.session) : std::nullopt;
        if (!held)
            co_return refused(ctx, a, gateway_error::session_unknown);
        co_return settle(ctx, a, std::move(*held));
    }

    verdict settle(request_context& ctx, arrival& a, session_call held) {
        a.in_use = std::move(held);
        auto version = header(a.req, "MCP-Protocol-Version").value_or("");
        if (!version.empty() && !protocol::supported_protocol_version(version))
            return refused(ctx, a, gateway_error::unsupported_version, {version});
        return verdict::proceed;
    }

    static verdict refused(request_context& ctx, const arrival& a, gateway_error e,
                           std::initializer_list<std::string_view> args = {}) {
        ctx.method = a.msg->method.empty() ? "http" : a.msg->method;
        refuse(ctx, e, args);
        return verdict::answered;
    }

    session_directory& sessions_;
};

} // namespace

std::unique_ptr<entry_step> make_session(session_directory& sessions) {
    return std::make_unique<session>(sessions);
}

} // namespace gate::gateway::pipeline
