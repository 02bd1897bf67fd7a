#include "simulations/replay/sim_upstream.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

namespace gate::sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

json::object capabilities() {
    return {{"tools", {{"listChanged", true}}},
            {"prompts", {{"listChanged", true}}},
            {"resources", {{"subscribe", true}, {"listChanged", true}}},
            {"completions", json::object{}},
            {"logging", json::object{}}};
}

std::string text_of(const json::value& v) {
    return json::serialize(v);
}

} // namespace

sim_upstream::sim_upstream(asio::io_context& io, std::string upstream, int replica,
                           std::shared_ptr<recorded_answers> answers,
                           std::shared_ptr<const fault_script> faults)
    : io_(io), acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}),
      bound_(acceptor_.local_endpoint()), upstream_(std::move(upstream)), replica_(replica),
      answers_(std::move(answers)), faults_(std::move(faults)) {
    asio::co_spawn(io_, accept_loop(), asio::detached);
}

void sim_upstream::arm_faults(std::chrono::steady_clock::time_point start) {
    start_ = start;
    if (!faults_)
        return;
    auto at = [&](std::chrono::milliseconds offset, std::function<void()> what) {
        auto t = std::make_shared<asio::steady_timer>(io_, start + offset);
        t->async_wait([what = std::move(what)](boost::system::error_code ec) {
            if (!ec)
                what();
        });
        scheduled_.push_back(std::move(t));
    };
    for (const auto& f : faults_->faults) {
        if (!f.applies(upstream_, replica_))
            continue;
        if (f.what == fault::kind::restart)
            at(f.from, [this] {
                ++faulted["restart"];
                forget_sessions();
            });
        if (f.what == fault::kind::down) {
            at(f.from, [this] { go_down(); });
            at(f.to, [this] { come_back(); });
        }
    }
}

void sim_upstream::go_down() {
    ++faulted["down"];
    boost::system::error_code ec;
    acceptor_.close(ec);
    for (auto* s : *open_)
        s->close(ec);
}

void sim_upstream::come_back() {
    acceptor_.open(bound_.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(bound_);
    acceptor_.listen();
    asio::co_spawn(io_, accept_loop(), asio::detached);
}

std::string sim_upstream::base() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
}

std::string sim_upstream::url() const {
    return base() + "/mcp";
}

asio::awaitable<void> sim_upstream::accept_loop() {
    for (;;) {
        boost::system::error_code ec;
        auto socket =
            co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        socket.set_option(tcp::no_delay(true), ec); // see sim_store_proxy: no answer held back
        asio::co_spawn(io_, serve(std::move(socket)), asio::detached);
    }
}

asio::awaitable<void> sim_upstream::serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    struct tracked {
        std::shared_ptr<std::set<tcp::socket*>> open;
        tcp::socket* s;
        ~tracked() { open->erase(s); }
    } track{open_, &stream.socket()};
    open_->insert(&stream.socket());
    beast::flat_buffer buf;
    for (;;) {
        request req;
        boost::system::error_code ec;
        co_await http::async_read(stream, buf, req, asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            co_return;
        response res{http::status::ok, req.version()};
        res.set(http::field::content_type, "application/json");
        auto path = std::string(req.target());
        auto next = fate::answer;
        if (path == "/jwks") {
            res.body() = text_of(jwks_);
        } else if (path == "/token") {
            res.body() = R"({"access_token":"replayed","token_type":"Bearer","expires_in":3600})";
        } else if (req.method() == http::verb::delete_) {
            sessions_.erase(std::string(req["Mcp-Session-Id"]));
        } else if (req.method() != http::verb::post) {
            res.result(http::status::method_not_allowed); // no server stream
            res.body().clear();
        } else {
            next = co_await answer_post(req, res);
        }
        if (next == fate::hang) {
            // Until gate gives up and closes the connection.
            asio::steady_timer never(io_, asio::steady_timer::time_point::max());
            co_await never.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        if (next != fate::answer)
            co_return;
        res.prepare_payload();
        co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !req.keep_alive())
            co_return;
    }
}

asio::awaitable<sim_upstream::fate> sim_upstream::answer_post(const request& req, response& res) {
    boost::system::error_code ec;
    auto v = json::parse(req.body(), ec);
    auto* msg = ec ? nullptr : v.if_object();
    auto session = std::string(req["Mcp-Session-Id"]);
    auto* method = msg ? msg->if_contains("method") : nullptr;
    if (!msg)
        res.result(http::status::bad_request);
    else if (!session.empty() && !sessions_.contains(session))
        res.result(http::status::not_found); // forgotten: gate initializes again
    else if (!msg->contains("id") || !method || !method->is_string())
        res.result(http::status::accepted); // a notification or a client's answer
    else
        co_return co_await answer_call(*msg, std::string(method->get_string()), session, res);
    co_return fate::answer;
}

asio::awaitable<sim_upstream::fate> sim_upstream::answer_call(const json::object& msg,
                                                              const std::string& name,
                                                              const std::string& session,
                                                              response& res) {
    ++asked[name];
    std::optional<fault> decided;
    if (faults_ && start_)
        decided = faults_->on_request(upstream_, replica_,
                                      std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - *start_));
    if (decided && decided->what == fault::kind::hang) {
        ++faulted["hang"];
        co_return fate::hang;
    }
    if (decided && decided->what == fault::kind::fail) {
        ++faulted["fail"];
        res.result(static_cast<http::status>(decided->status));
        res.body() = R"({"error":"simulated failure"})";
        co_return fate::answer;
    }
    if (decided && decided->what == fault::kind::slow) {
        ++faulted["slow"];
        asio::steady_timer wait(io_, decided->delay);
        boost::system::error_code ec;
        co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    json::object answer{{"jsonrpc", "2.0"}, {"id", msg.at("id")}};
    json::object params;
    if (auto* p = msg.if_contains("params"); p && p->is_object()) {
        params = p->get_object();
        params.erase("_meta");
    }
    if (name == "initialize") {
        answer["result"] = initialized(params, res);
    } else if (name == "ping") {
        answer["result"] = json::object{};
    } else if (auto reply = answers_->next(upstream_, name, params)) {
        if (auto* failed = std::get_if<protocol::recorded_answer::failure>(&*reply))
            co_return recorded_failure(*failed, res);
        for (auto& [k, m] : std::get<json::object>(*reply))
            answer[k] = m;
    } else {
        ++unanswerable;
        answer["error"] = json::object{
            {"code", -32601},
            {"message", "the recording holds no answer to " + name + " at " + upstream_}};
    }
    if (name == "tools/call" && !session.empty()) {
        res.set(http::field::content_type, "text/event-stream");
        res.body() = with_session_message(session, answer);
    } else {
        res.body() = text_of(answer);
    }
    co_return fate::answer;
}

json::object sim_upstream::initialized(const json::object& params, response& res) {
    auto id = upstream_ + "-r" + std::to_string(replica_) + "-s" + std::to_string(next_session_++);
    sessions_.insert(id);
    res.set("Mcp-Session-Id", id);
    auto* version = params.if_contains("protocolVersion");
    return json::object{{"protocolVersion", version ? *version : json::value("2025-11-25")},
                        {"capabilities", capabilities()},
                        {"serverInfo", {{"name", "replay-" + upstream_}, {"version", "1"}}}};
}

sim_upstream::fate sim_upstream::recorded_failure(const protocol::recorded_answer::failure& failed,
                                                  response& res) {
    if (failed.kind == "timeout")
        return fate::hang;
    if (failed.kind == "connect_error")
        return fate::close;
    if (failed.kind == "http_status" && failed.status >= 400) {
        res.result(static_cast<http::status>(failed.status));
        res.body() = R"({"error":"recorded failure"})";
    } else {
        res.body() = "not JSON-RPC"; // the recorded answer was not one
    }
    return fate::answer;
}

std::string sim_upstream::with_session_message(const std::string& session,
                                               const json::object& answer) {
    // Every call's answer comes after a message of the upstream's own on the call's stream
    // naming the upstream session: the replay checks that no principal hears what was said on
    // another's session.
    json::object said{
        {"jsonrpc", "2.0"},
        {"method", "notifications/message"},
        {"params", {{"level", "info"}, {"logger", "replay"}, {"data", {{"session", session}}}}}};
    return "event: message\ndata: " + text_of(said) +
           "\n\nevent: message\ndata: " + text_of(answer) + "\n\n";
}

} // namespace gate::sim
