// Stage 2: authenticate. With auth.mode "disabled" every caller is anonymous: the context's
// principal stays empty and the request continues. With "required", the Bearer token is
// checked (gateway/auth/token_authenticator) and its principal rides the context; a missing or
// invalid token is answered 401 with the challenge that points at the resource metadata
// (RFC 9728), audited once as an `http` rejection with outcome unauthenticated.
#include "gateway/pipeline/s2_authenticate.hpp"

#include "gateway/pipeline/answers.hpp"

#include <boost/json/serialize.hpp>

namespace gate::gateway::pipeline {

namespace {

// A quoted-string of RFC 9110 section 5.6.4: the description is ours, but may quote a claim.
std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
    return out + "\"";
}

class authenticate final : public stage {
public:
    authenticate(authenticate_services* tokens, std::string resource_metadata)
        : tokens_(tokens), resource_metadata_(std::move(resource_metadata)) {}
    gateway::stage id() const override { return gateway::stage::authenticate; }
    step run(request_context& ctx) override {
        ctx.who.caller.reset();
        if (!tokens_)
            return verdict::proceed;
        if (auto known =
                tokens_->authenticate_now(ctx.admission.authorization, ctx.admission.query_token))
            return settle(ctx, std::move(*known));
        return verify(ctx);
    }

private:
    using auth_result = authenticate_services::result;

    boost::asio::awaitable<verdict> verify(request_context& ctx) {
        co_return settle(ctx, co_await tokens_->authenticate(ctx.admission.authorization,
                                                             ctx.admission.query_token));
    }

    verdict settle(request_context& ctx, auth_result result) {
        if (auto* who = std::get_if<policy::caller_ref>(&result)) {
            ctx.who.caller = std::move(*who);
            return place_in_tenant(ctx);
        }
        const auto& refused = std::get<auth_refusal>(result);
        std::string challenge = "Bearer resource_metadata=" + quoted(resource_metadata_);
        if (!refused.error.empty())
            challenge += ", error=" + quoted(refused.error) +
                         ", error_description=" + quoted(refused.description);
        refuse(ctx, error_answer{gateway_error::unauthenticated, refused.description, nullptr,
                                 refused.error.empty() ? "unauthorized" : refused.error});
        ctx.answer.refusal_reply->headers.emplace_back("WWW-Authenticate", std::move(challenge));
        return verdict::answered;
    }

    // The principal's tenant, from its verified claims only; a principal two tenants select
    // is refused (403) rather than placed by the order of the document.
    verdict place_in_tenant(request_context& ctx) {
        const auto& tenants = ctx.view ? ctx.view->snap->tenants : nullptr;
        if (!tenants)
            return verdict::proceed;
        auto placed = tenants->resolve(*ctx.who.caller);
        if (auto* i = std::get_if<std::size_t>(&placed)) {
            ctx.who.tenant = tenants->tenant(*i).id;
            ctx.who.tenant_index = *i;
        }
        auto* both = std::get_if<policy::tenant_resolver::ambiguous>(&placed);
        if (!both)
            return verdict::proceed;
        refuse(ctx, gateway_error::ambiguous_tenant,
               {ctx.who.caller->subject, both->first, both->second});
        return verdict::answered;
    }

    authenticate_services* tokens_;
    std::string resource_metadata_;
};

} // namespace

std::unique_ptr<stage> make_authenticate(authenticate_services* tokens,
                                         std::string resource_metadata) {
    return std::make_unique<authenticate>(tokens, std::move(resource_metadata));
}

} // namespace gate::gateway::pipeline
