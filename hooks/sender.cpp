#include "hooks/sender.hpp"

#include "hooks/kept_text.hpp"
#include "hooks/retry_after.hpp"
#include "hooks/target_guard.hpp"
#include "hooks/webhook_request.hpp"
#include "process/version.hpp"
#include "transport/client/upstream_connection.hpp"
#include "transport/http/header_writer.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

namespace gate::hooks {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string describe(const tcp::endpoint& e) {
    return e.address().to_string();
}

// The attempt's header fields and body; why not, if a field cannot be sent. Every field goes
// through the one writer: a value with a control character (a decoded host name among them)
// is never sent, and the attempt fails saying which field.
std::optional<std::string>
fill_request(http::request<http::string_body>& req, const boost::urls::url_view& u,
             const std::string& host, const std::string& port, const std::string& body,
             const std::vector<std::pair<std::string, std::string>>& headers) {
    // An IPv6 literal keeps its brackets in Host (RFC 9110 section 7.2), not in what is dialled.
    auto authority = u.host_type() == boost::urls::host_type::ipv6 ? "[" + host + "]" : host;
    if (!transport::set_header(req, http::field::host,
                               u.has_port() ? authority + ":" + port : authority))
        return "the url's host holds a control character";
    req.set(http::field::user_agent, "gate-hooks/" + std::string(process::gate_version));
    req.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : headers)
        if (!transport::set_header(req, k, v))
            return "the header " +
                   (transport::header_name_valid(k) ? k : std::string("(an invalid name)")) +
                   " holds a control character";
    req.body() = body;
    req.prepare_payload();
    return std::nullopt;
}

// What the receiver answered, as far as it is kept.
void read_answer(const http::response<http::string_body>& res, send_result& out) {
    out.status = static_cast<int>(res.result_int());
    out.status_text = kept_text(res.reason(), 256);
    out.body = kept_text(res.body(), kept_response_bytes);
    if (auto it = res.find(http::field::retry_after); it != res.end())
        out.retry_after = parse_retry_after(it->value(), std::chrono::system_clock::now());
}

} // namespace

struct sender::slot_waiter {
    boost::asio::steady_timer timer;
    receiver& r;
    bool granted = false;
    ~slot_waiter() {
        if (!granted)
            std::erase(r.waiting, this);
    }
};

// Holds a turn for the rest of an exchange, whichever way it ends.
class sender::slot {
public:
    explicit slot(std::shared_ptr<receiver> r) : r_(std::move(r)) {}
    ~slot() { end_turn(*r_); }
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;

private:
    std::shared_ptr<receiver> r_;
};

sender::sender(asio::any_io_executor ex, const delivery_settings& settings)
    : ex_(std::move(ex)), settings_(settings), tls_(transport::make_client_tls_context()) {
    if (settings_.ca_file)
        tls_->load_verify_file(*settings_.ca_file);
}

sender::~sender() {
    for (auto& [key, r] : receivers_) {
        r->closed = true;
        r->idle.clear();
    }
}

asio::awaitable<send_result>
sender::post(const std::string& url, const std::string& body,
             const std::vector<std::pair<std::string, std::string>>& headers) {
    send_result out;
    if (auto bad = check_target_url(url)) {
        out.error = "the url " + *bad;
        co_return out;
    }
    auto u = boost::urls::parse_absolute_uri(url);
    std::string host = target_host(*u);
    std::string port = u->has_port() ? std::string(u->port()) : "443";
    std::string target = u->encoded_target().empty() ? "/" : std::string(u->encoded_target());

    auto deadline = std::chrono::steady_clock::now() + settings_.timeout;
    auto left = [&] {
        return std::max(std::chrono::milliseconds(1),
                        std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now()));
    };
    http::request<http::string_body> req{http::verb::post, target, 11};
    if (auto bad = fill_request(req, *u, host, port, body, headers)) {
        out.error = std::move(bad);
        co_return out;
    }
    auto& peer = receivers_[host + ":" + port];
    if (!peer) {
        peer = std::make_shared<receiver>();
        peer->limit = settings_.connections_per_receiver;
    }
    auto r = peer; // the map may rehash while this exchange waits
    if (!co_await take_turn(r, deadline)) {
        out.error =
            "timeout: the receiver's " + std::to_string(settings_.connections_per_receiver) +
            " connections stayed busy for " + std::to_string(settings_.timeout.count()) + " ms";
        co_return out;
    }
    slot turn(r);
    for (int round = 0; round < 2; ++round) {
        // A kept-alive connection to this receiver first; it was checked when it was opened.
        auto conn = round == 0 ? take_idle(*r) : std::nullopt;
        bool reused = conn.has_value();
        if (!conn) {
            auto opened = co_await connect(host, port, left(), out);
            if (!opened)
                co_return out;
            conn = std::move(*opened);
        }
        conn->lowest().expires_after(left());
        beast::flat_buffer buf;
        http::response_parser<http::string_body> parser;
        parser.body_limit(64 * 1024);
        boost::system::error_code ec;
        co_await http::async_write(*conn->tls, req, asio::redirect_error(asio::use_awaitable, ec));
        if (!ec)
            co_await http::async_read(*conn->tls, buf, parser,
                                      asio::redirect_error(asio::use_awaitable, ec));
        if (ec && !parser.is_header_done()) {
            if (reused && ec != beast::error::timeout)
                continue; // the receiver closed the idle connection: once more on a new one
            out.error = ec == beast::error::timeout
                            ? "timeout: no answer within " +
                                  std::to_string(settings_.timeout.count()) + " ms"
                            : "no answer: " + ec.message();
            co_return out;
        }
        read_answer(parser.get(), out);
        if (!ec && parser.is_done() && parser.get().keep_alive())
            give_back(*r, std::move(*conn));
        else
            conn->lowest().close();
        co_return out;
    }
    co_return out;
}

asio::awaitable<std::optional<transport::upstream_connection>>
sender::connect(const std::string& host, const std::string& port, std::chrono::milliseconds budget,
                send_result& out) {
    tcp::resolver resolver(ex_);
    boost::system::error_code ec;
    auto results =
        co_await resolver.async_resolve(host, port, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
        out.error = "cannot resolve " + host + ": " + ec.message();
        co_return std::nullopt;
    }
    // Server-side request forgery: judged on the addresses actually dialled, now.
    std::vector<tcp::endpoint> allowed;
    std::string refused;
    for (const auto& r : results) {
        auto a = r.endpoint().address();
        bool blocked = false;
        if (a.is_v4()) {
            auto b = a.to_v4().to_bytes();
            blocked = is_non_public(b);
        } else {
            auto b = a.to_v6().to_bytes();
            blocked = is_non_public(b);
        }
        if (blocked && !settings_.allow_private_targets)
            refused += (refused.empty() ? "" : ", ") + describe(r.endpoint());
        else
            allowed.push_back(r.endpoint());
    }
    if (allowed.empty()) {
        out.error = "refused: " + host + " resolves only to non-public addresses (" + refused +
                    "); the operator has not allowed private targets";
        co_return std::nullopt;
    }
    auto opened =
        co_await transport::open_upstream_connection(ex_, allowed, host, tls_.get(), budget);
    if (auto* why = std::get_if<std::string>(&opened)) {
        out.error = *why;
        co_return std::nullopt;
    }
    co_return std::move(std::get<transport::upstream_connection>(opened));
}

asio::awaitable<bool> sender::take_turn(std::shared_ptr<receiver> r,
                                        std::chrono::steady_clock::time_point deadline) {
    if (r->busy < r->limit && r->waiting.empty()) {
        ++r->busy;
        co_return true;
    }
    slot_waiter w{asio::steady_timer(co_await asio::this_coro::executor, deadline), *r};
    r->waiting.push_back(&w);
    boost::system::error_code ec; // cancelled: the turn was handed over
    co_await w.timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return w.granted;
}

void sender::end_turn(receiver& r) {
    if (r.closed)
        return;
    // The turn goes straight to the longest waiting exchange, so none is overtaken.
    if (!r.waiting.empty()) {
        auto* next = r.waiting.front();
        r.waiting.pop_front();
        next->granted = true;
        next->timer.cancel();
        return;
    }
    --r.busy;
}

std::optional<transport::upstream_connection> sender::take_idle(receiver& r) {
    auto& pool = r.idle;
    // Receivers close idle connections after a few seconds (Node: 5 s); older ones are not
    // trusted. The newest is last: when it is too old, so are all the others.
    while (!pool.empty() &&
           std::chrono::steady_clock::now() - pool.back().idle_since > max_idle_age)
        pool.pop_back();
    if (pool.empty())
        return std::nullopt;
    auto conn = std::move(pool.back());
    pool.pop_back();
    return conn;
}

void sender::sweep(std::chrono::steady_clock::time_point now) {
    if (now - last_sweep_ < std::chrono::seconds(1))
        return;
    last_sweep_ = now;
    std::erase_if(receivers_, [now](auto& entry) {
        auto& r = *entry.second;
        // Oldest first: the receiver has most likely closed these already (CLOSE_WAIT here).
        while (!r.idle.empty() && now - r.idle.front().idle_since > max_idle_age) {
            r.idle.front().lowest().close();
            r.idle.pop_front();
        }
        return r.idle.empty() && r.busy == 0 && r.waiting.empty();
    });
}

void sender::give_back(receiver& r, transport::upstream_connection conn) {
    if (r.idle.size() >= r.limit) {
        conn.lowest().close();
        return;
    }
    conn.lowest().expires_never();
    conn.idle_since = std::chrono::steady_clock::now();
    r.idle.push_back(std::move(conn));
}

} // namespace gate::hooks
