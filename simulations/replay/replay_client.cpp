#include "simulations/replay/replay_client.hpp"

#include "protocol/list_kind.hpp"
#include "simulations/replay/virtual_time.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

namespace gate::sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

// The JSON-RPC messages of an answer: its JSON body, or each `data:` of an event stream.
std::vector<json::object> messages_of(const std::string& body) {
    std::vector<json::object> out;
    auto take = [&](std::string_view text) {
        boost::system::error_code ec;
        auto v = json::parse(text, ec);
        if (!ec && v.is_object())
            out.push_back(std::move(v.as_object()));
    };
    if (!body.empty() && body.front() == '{') {
        take(body);
        return out;
    }
    std::size_t at = 0;
    while (at < body.size()) {
        auto end = body.find('\n', at);
        if (end == std::string::npos)
            end = body.size();
        std::string_view line(body.data() + at, end - at);
        if (line.starts_with("data:"))
            take(line.substr(line.size() > 5 && line[5] == ' ' ? 6 : 5));
        at = end + 1;
    }
    return out;
}

std::string method_of(const protocol::recorded_request& r) {
    auto* m = r.message.is_object() ? r.message.as_object().if_contains("method") : nullptr;
    return m && m->is_string() ? std::string(m->get_string()) : std::string();
}

} // namespace

replay_client::replay_client(asio::io_context& io, std::vector<std::uint16_t> ports,
                             std::string mcp_path, token_minter mint, balance how)
    : io_(io), ports_(std::move(ports)), mcp_path_(std::move(mcp_path)), mint_(std::move(mint)),
      balance_(how), idle_(ports_.size()) {}

std::size_t replay_client::instance_for(const protocol::recorded_request& r) {
    if (balance_ == balance::rotate || !r.session)
        return turn_++ % ports_.size();
    auto [it, fresh] = home_.emplace(*r.session, 0);
    if (fresh)
        it->second = turn_++ % ports_.size();
    return it->second;
}

asio::awaitable<replay_client::exchange_result>
replay_client::exchange(std::size_t instance, std::string method, std::string target,
                        std::string body,
                        std::vector<std::pair<std::string, std::string>> headers) {
    auto& idle = idle_[instance];
    auto port = ports_[instance];
    http::request<http::string_body> req{http::string_to_verb(method), target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    for (auto& [k, v] : headers)
        req.set(k, v);
    req.body() = std::move(body);
    req.prepare_payload();
    // A kept-alive connection gate closed while it was idle (its idle timeout runs in virtual
    // time too) fails before any answer: the request never reached gate, so it goes again on
    // a new connection, as an HTTP client does. A new connection that fails is the answer.
    for (;;) {
        std::unique_ptr<beast::tcp_stream> conn;
        bool reused = !idle.empty();
        boost::system::error_code ec;
        if (reused) {
            conn = std::move(idle.back());
            idle.pop_back();
        } else {
            conn = std::make_unique<beast::tcp_stream>(io_);
            co_await conn->async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                                         asio::redirect_error(asio::use_awaitable, ec));
            if (ec)
                co_return exchange_result{};
            conn->socket().set_option(tcp::no_delay(true), ec); // no request held back
        }
        co_await http::async_write(*conn, req, asio::redirect_error(asio::use_awaitable, ec));
        http::response_parser<http::string_body> parser;
        parser.body_limit(64u << 20);
        beast::flat_buffer buf;
        if (!ec)
            co_await http::async_read(*conn, buf, parser,
                                      asio::redirect_error(asio::use_awaitable, ec));
        if (ec && reused && !parser.got_some())
            continue;
        if (ec)
            co_return exchange_result{};
        auto& res = parser.get();
        exchange_result out{static_cast<int>(res.result_int()), std::string(res["Mcp-Session-Id"]),
                            std::move(res.body())};
        if (res.keep_alive() && buf.size() == 0)
            idle.push_back(std::move(conn));
        co_return out;
    }
}

std::vector<std::pair<std::string, std::string>>
replay_client::headers_for(const protocol::recorded_request& r) {
    std::vector<std::pair<std::string, std::string>> h{
        {"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
    if (r.version)
        h.emplace_back("MCP-Protocol-Version", *r.version);
    if (r.principal && mint_)
        if (auto token = mint_(*r.principal); !token.empty())
            h.emplace_back("Authorization", "Bearer " + token);
    if (r.session && method_of(r) != "initialize")
        if (auto it = live_.find(*r.session); it != live_.end())
            h.emplace_back("Mcp-Session-Id", it->second);
    return h;
}

void replay_client::note_cursor(const std::string& alias, const std::string& method,
                                const std::string& body) {
    for (auto& m : messages_of(body)) {
        auto* result = m.if_contains("result");
        auto* next =
            result && result->is_object() ? result->as_object().if_contains("nextCursor") : nullptr;
        if (next && next->is_string())
            cursor_[alias + '\n' + method] = std::string(next->get_string());
        else if (result)
            cursor_.erase(alias + '\n' + method);
    }
}

void replay_client::check_answer(const protocol::recorded_request& r, const std::string& body) {
    auto* id = r.message.is_object() ? r.message.as_object().if_contains("id") : nullptr;
    auto who = r.principal ? r.principal->iss + '\n' + r.principal->sub : std::string();
    int responses = 0;
    for (auto& m : messages_of(body)) {
        // What an upstream said on its own on the upstream session of this call.
        if (auto* method = m.if_contains("method"); method && *method == "notifications/message")
            if (auto* p = m.if_contains("params"); p && p->is_object())
                if (auto* d = p->as_object().if_contains("data"); d && d->is_object())
                    if (auto* s = d->as_object().if_contains("session"); s && s->is_string()) {
                        ++heard_from_upstreams;
                        auto [it, fresh] = given_to_.emplace(
                            "upstream session " + std::string(s->get_string()), who);
                        if (!fresh && it->second != who)
                            ++shared_across_principals;
                    }
        auto* mid = m.if_contains("id");
        if (id && mid && *mid == *id && (m.contains("result") || m.contains("error")))
            ++responses;
        auto* result = m.if_contains("result");
        auto* o = result ? result->if_object() : nullptr;
        if (!o)
            continue;
        std::vector<std::string> given;
        if (auto* c = o->if_contains("nextCursor"); c && c->is_string())
            given.emplace_back(c->get_string());
        if (auto* t = o->if_contains("task"); t && t->is_object())
            if (auto* tid = t->as_object().if_contains("taskId"); tid && tid->is_string())
                given.emplace_back(tid->get_string());
        for (auto& g : given) {
            auto [it, fresh] = given_to_.emplace(g, who);
            if (!fresh && it->second != who)
                ++shared_across_principals;
        }
    }
    if (responses > 1)
        ++answered_twice;
}

asio::awaitable<void> replay_client::open_session(const protocol::recorded_request& r) {
    // The recording began after this session did: open it as a client would have.
    opened_[*r.session] = true;
    ++synthesized_initializes;
    protocol::recorded_request init = r;
    init.message = json::object{{"jsonrpc", "2.0"},
                                {"id", "replay-initialize"},
                                {"method", "initialize"},
                                {"params",
                                 {{"protocolVersion", r.version.value_or("2025-11-25")},
                                  {"capabilities", json::object{}},
                                  {"clientInfo", {{"name", "gate-replay"}, {"version", "1"}}}}}};
    ++posts;
    auto got = co_await exchange(instance_for(init), "POST", mcp_path_,
                                 json::serialize(init.message), headers_for(init));
    ++statuses[got.status];
    if (got.session.empty())
        co_return;
    live_[*r.session] = got.session;
    json::object initialized{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
    ++posts;
    auto note = co_await exchange(instance_for(r), "POST", mcp_path_, json::serialize(initialized),
                                  headers_for(r));
    ++statuses[note.status];
}

asio::awaitable<void> replay_client::send(const protocol::recorded_request& r) {
    auto method = method_of(r);
    auto message = r.message;
    if (r.session && protocol::list_kind_of(method))
        if (auto* params = message.as_object().if_contains("params");
            params && params->is_object() && params->as_object().contains("cursor")) {
            auto it = cursor_.find(*r.session + '\n' + method);
            if (it != cursor_.end())
                params->as_object()["cursor"] = it->second;
        }
    ++posts;
    auto got = co_await exchange(instance_for(r), "POST", mcp_path_, json::serialize(message),
                                 headers_for(r));
    ++statuses[got.status];
    check_answer(r, got.body);
    if (method == "initialize" && r.session && !got.session.empty())
        live_[*r.session] = got.session;
    if (r.session && protocol::list_kind_of(method))
        note_cursor(*r.session, method, got.body);
}

asio::awaitable<void>
replay_client::replay(const std::vector<protocol::recorded_request>& requests) {
    if (requests.empty())
        co_return;
    auto origin = virtual_now();
    auto first = requests.front().at;
    asio::steady_timer clock(io_);
    asio::steady_timer all_done(io_, asio::steady_timer::time_point::max());
    for (const auto& r : requests) {
        clock.expires_at(origin + (r.at - first));
        boost::system::error_code ec;
        co_await clock.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (r.session && method_of(r) != "initialize" && !live_.contains(*r.session) &&
            !opened_.contains(*r.session))
            co_await open_session(r);
        if (method_of(r) == "initialize") {
            // The session it opens is known before its next message is sent.
            co_await send(r);
            continue;
        }
        ++outstanding_;
        asio::co_spawn(io_, send(r), [this, &all_done](std::exception_ptr) {
            if (--outstanding_ == 0)
                all_done.cancel();
        });
    }
    if (outstanding_ > 0) {
        boost::system::error_code ec;
        co_await all_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<std::string> replay_client::get(std::string target, std::size_t instance) {
    auto got = co_await exchange(instance, "GET", std::move(target), "", {});
    co_return got.body;
}

} // namespace gate::sim
