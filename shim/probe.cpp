#include "shim/probe.hpp"

#include "process/version.hpp"
#include "protocol/protocol_versions.hpp"
#include "shim/child_process.hpp"
#include "shim/line_splitter.hpp"
#include "shim/stderr_limit.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <optional>
#include <spdlog/spdlog.h>

namespace gate::shim {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view probe_id = "gate-stdio-probe";

struct probe_state {
    explicit probe_state(asio::any_io_executor ex)
        : wake(ex, asio::steady_timer::time_point::max()) {}
    asio::steady_timer wake;
    std::optional<json::object> answer;
    std::optional<std::string> exit;
};

std::string describe_answer(const json::object& answer, std::string_view method = "initialize") {
    if (auto* err = answer.if_contains("error")) {
        auto* o = err->if_object();
        auto* m = o ? o->if_contains("message") : nullptr;
        return "the server refused " + std::string(method) + ": " +
               (m && m->is_string() ? std::string(m->get_string()) : json::serialize(*err));
    }
    auto* result = answer.if_contains("result");
    if (!result || !result->is_object())
        return {};
    std::string name = "?", version = "?", protocol = "?";
    const auto& r = result->get_object();
    const json::value* info = r.if_contains("serverInfo");
    if (auto* meta = r.if_contains("_meta"); !info && meta && meta->is_object())
        info = meta->get_object().if_contains("io.modelcontextprotocol/serverInfo");
    if (auto* versions = r.if_contains("supportedVersions"); versions && versions->is_array()) {
        protocol.clear();
        for (const auto& v : versions->get_array())
            if (v.is_string())
                protocol += (protocol.empty() ? "" : ", ") + std::string(v.get_string());
    }
    if (info && info->is_object()) {
        if (auto* n = info->get_object().if_contains("name"); n && n->is_string())
            name = n->get_string();
        if (auto* v = info->get_object().if_contains("version"); v && v->is_string())
            version = v->get_string();
    }
    if (auto* p = r.if_contains("protocolVersion"); p && p->is_string())
        protocol = p->get_string();
    return name + " " + version + " (protocol " + protocol + ")";
}

// A server that speaks only 2026-07-28 refuses initialize; it answers server/discover
// (statelessly, on the same pipes).
json::object discover_request() {
    json::object meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                      {"io.modelcontextprotocol/clientCapabilities", json::object{}},
                      {"io.modelcontextprotocol/clientInfo",
                       {{"name", "gate-stdio-probe"}, {"version", process::gate_version}}}};
    return {{"jsonrpc", "2.0"},
            {"id", probe_id},
            {"method", "server/discover"},
            {"params", {{"_meta", std::move(meta)}}}};
}

bool accepted_discover(const json::object& answer) {
    auto* result = answer.if_contains("result");
    auto* versions = result && result->is_object()
                         ? result->get_object().if_contains("supportedVersions")
                         : nullptr;
    return versions && versions->is_array() && !versions->get_array().empty();
}

// Sends `request` and waits for its answer, the child's exit, or `timeout`.
asio::awaitable<void> exchange(probe_state& state, child_process& child,
                               const json::object& request, std::chrono::milliseconds timeout) {
    state.answer.reset();
    child.send(to_stdio_line(json::serialize(request)));
    boost::system::error_code ec;
    state.wake.expires_after(timeout);
    if (!state.answer && !state.exit)
        co_await state.wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

} // namespace

asio::awaitable<probe_result> probe_server(asio::any_io_executor ex, spawn_request request,
                                           std::chrono::milliseconds timeout) {
    auto state = std::make_shared<probe_state>(ex);
    child_process::callbacks cb;
    cb.on_stdout_line = [state](std::string line) {
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        auto* o = ec ? nullptr : v.if_object();
        auto* id = o ? o->if_contains("id") : nullptr;
        if (id && id->is_string() && id->get_string() == probe_id &&
            (o->contains("result") || o->contains("error")) && !state->answer) {
            state->answer = std::move(*o);
            state->wake.cancel();
        }
    };
    // A probe lasts seconds, but its child may flood stderr like any other.
    auto log = std::make_shared<stderr_limit>(stderr_limits{}, std::chrono::steady_clock::now());
    cb.on_stderr_line = [log](std::string_view line, std::size_t length) {
        if (log->line(std::chrono::steady_clock::now()).log)
            spdlog::debug("probe stderr: {}",
                          loggable_line(line, length, log->limits().max_line_bytes));
    };
    cb.on_exit = [state](const child_exit& e, pid_t) {
        state->exit = e.description;
        state->wake.cancel();
    };
    auto started = child_process::start(ex, request, std::move(cb), 16u << 20);
    if (auto* err = std::get_if<std::string>(&started))
        co_return probe_result{false, *err};
    auto child = std::get<std::shared_ptr<child_process>>(started);

    json::object init{
        {"jsonrpc", "2.0"},
        {"id", probe_id},
        {"method", "initialize"},
        {"params",
         {{"protocolVersion", protocol::downstream_protocol_versions[0]},
          {"capabilities", json::object{}},
          {"clientInfo", {{"name", "gate-stdio-probe"}, {"version", process::gate_version}}}}}};
    co_await exchange(*state, *child, init, timeout);

    probe_result result;
    if (state->answer && state->answer->contains("error") && !state->exit) {
        auto refused = describe_answer(*state->answer);
        co_await exchange(*state, *child, discover_request(), timeout);
        if (state->answer && accepted_discover(*state->answer)) {
            result.ok = true;
            result.detail = describe_answer(*state->answer, "server/discover");
        } else {
            result.detail = refused;
        }
    } else if (state->answer) {
        result.detail = describe_answer(*state->answer);
        result.ok = !state->answer->contains("error") && !result.detail.empty();
        if (result.detail.empty())
            result.detail = "the server answered initialize without a result";
        if (result.ok)
            child->send(to_stdio_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    } else if (state->exit) {
        result.detail = "the server " + *state->exit + " before answering initialize";
    } else {
        result.detail = "the server did not answer initialize within " +
                        std::to_string(timeout.count()) + " ms";
    }
    // End it and wait until it is reaped: a probe leaves no process behind.
    boost::system::error_code ec;
    child->terminate(std::chrono::seconds(2));
    while (!state->exit) {
        state->wake.expires_after(std::chrono::seconds(5));
        co_await state->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return result;
}

} // namespace gate::shim
