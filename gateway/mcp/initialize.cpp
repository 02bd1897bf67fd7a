// Passthrough presents the one upstream as it is; a federation presents gate.
#include "gateway/mcp/initialize.hpp"

#include "gateway/mcp/composed_instructions.hpp"
#include "gateway/mcp/federation_identity.hpp"
#include "gateway/pipeline/client_answer.hpp"
#include "process/version.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/protocol_versions.hpp"

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// A namespaced federation as configured (server.info, server.instructions), with each
// upstream's own instructions as its last handshake gave them.
void present_federation(const request_context& rec, json::object& result,
                        composed_instructions& instructions) {
    result["serverInfo"] =
        federation_server_info(rec.view->snap->doc->server.info, process::gate_version);
    if (const auto& text = instructions.of(rec.view))
        result["instructions"] = *text;
}

} // namespace

asio::awaitable<json::object> initialize_answer(upstream_calls& calls, const json::value& id,
                                                const json::object& params, std::string& version,
                                                request_context& rec) {
    std::string requested;
    if (auto* v = params.if_contains("protocolVersion"); v && v->is_string())
        requested = std::string(v->get_string());
    version = protocol::negotiate_protocol_version(requested);
    json::object result;
    if (rec.view->snap->codec.passthrough()) {
        // Passthrough presents the one upstream as it is: its capabilities, info, instructions.
        rec.upstream = rec.view->snap->upstream(0).id;
        rec.audit.upstream_calls = 1;
        auto ctx = traced_call(rec);
        json::object capabilities;
        if (rec.view->per_caller(0)) {
            // Asked with the caller's credential, on its principal's bridge, declaring what
            // this client declares.
            calls.bind_caller(ctx, rec, 0);
            if (auto* c = params.if_contains("capabilities"); c && c->is_object())
                capabilities = c->as_object();
            ctx.client_capabilities = &capabilities;
        }
        auto r = co_await rec.view->client_at(0)->sessions().initialize_result(ctx);
        if (auto* f = std::get_if<upstream_failure>(&r)) {
            if (f->answer) {
                // The upstream refused the handshake itself: its error goes back verbatim.
                co_return pass_on(std::move(*f->answer), id, rec);
            }
            co_return refuse_upstream(rec, id, rec.view->snap->upstream(0).id, *f);
        }
        result = std::move(std::get<json::object>(r));
    } else {
        result["capabilities"] = {{"tools", {{"listChanged", true}}},
                                  {"prompts", {{"listChanged", true}}},
                                  {"resources", {{"listChanged", true}, {"subscribe", true}}},
                                  {"completions", json::object{}},
                                  {"logging", json::object{}},
                                  {"tasks",
                                   {{"list", json::object{}},
                                    {"cancel", json::object{}},
                                    {"requests", {{"tools", {{"call", json::object{}}}}}}}},
                                  // MCP Apps of every upstream: their views are named per
                                  // upstream and their calls routed (docs/apps.md).
                                  {"extensions", {{protocol::ui_extension, json::object{}}}}};
        present_federation(rec, result, calls.instructions());
    }
    result["protocolVersion"] = version;
    co_return protocol::make_result(id, std::move(result));
}

} // namespace gate::gateway
