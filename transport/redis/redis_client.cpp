#include "transport/redis/redis_client.hpp"

#include "transport/client/upstream_connection.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/url/parse.hpp>
#include <charconv>

namespace gate::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using clock = std::chrono::steady_clock;
using namespace asio::experimental::awaitable_operators;

std::variant<redis_endpoint, std::string> parse_redis_url(std::string_view text) {
    // With its length: Boost.URL 1.81 takes other views through a `const char*`.
    auto u = boost::urls::parse_uri(boost::core::string_view(text.data(), text.size()));
    if (!u)
        return std::string("not a URL");
    if (u->scheme() != "redis")
        return "the scheme must be redis:// (got " + std::string(u->scheme()) + ")";
    redis_endpoint ep;
    if (!u->host().empty())
        ep.host = u->host();
    if (u->has_port())
        ep.port = u->port();
    if (u->has_userinfo()) {
        auto user = std::string(u->user());
        if (!user.empty())
            ep.user = user;
        if (u->has_password())
            ep.password = std::string(u->password());
    }
    auto path = std::string(u->path());
    if (!path.empty() && path != "/") {
        auto digits = std::string_view(path).substr(1);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ep.database);
        if (ec != std::errc() || end != digits.data() + digits.size() || ep.database < 0)
            return "the path must be a database number (got " + path + ")";
    }
    ep.display = "redis://" + ep.host + ":" + ep.port + "/" + std::to_string(ep.database);
    return ep;
}

struct redis_client::pending {
    explicit pending(asio::any_io_executor ex) : wake(ex, clock::time_point::max()) {}
    asio::steady_timer wake; // cancelled when the reply (or the failure) is in
    std::optional<std::variant<redis_value, std::string>> result;
};

redis_client::redis_client(asio::any_io_executor ex, redis_endpoint ep,
                           std::chrono::milliseconds bound)
    : ex_(std::move(ex)), ep_(std::move(ep)), bound_(bound) {}

redis_client::~redis_client() {
    close();
}

void redis_client::close() {
    if (socket_) {
        boost::system::error_code ec;
        socket_->close(ec);
        socket_.reset();
    }
    fail_all("the connection to Redis at " + ep_.display + " was closed");
}

void redis_client::fail_all(const std::string& why) {
    for (auto& p : std::exchange(inflight_, {})) {
        if (!p->result)
            p->result = why;
        p->wake.cancel();
    }
    outbox_.clear();
    writing_ = false;
}

void redis_client::enqueue(std::string wire, std::shared_ptr<pending> p) {
    outbox_ += wire;
    inflight_.push_back(std::move(p));
    if (!writing_) {
        writing_ = true;
        asio::co_spawn(ex_, write_loop(socket_), asio::detached);
    }
}

asio::awaitable<void> redis_client::write_loop(std::shared_ptr<tcp::socket> s) {
    auto self = shared_from_this();
    while (socket_ == s) {
        if (outbox_.empty()) {
            writing_ = false;
            co_return;
        }
        auto data = std::exchange(outbox_, {});
        boost::system::error_code ec;
        co_await asio::async_write(*s, asio::buffer(data),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            s->close(ec); // the read loop ends and fails what is in flight
            co_return;
        }
    }
}

asio::awaitable<void> redis_client::read_loop(std::shared_ptr<tcp::socket> s) {
    auto self = shared_from_this();
    redis_reply_reader reader;
    std::array<char, 16 * 1024> buf;
    std::string why = "the connection to Redis at " + ep_.display + " was lost";
    for (bool open = true; open;) {
        boost::system::error_code ec;
        auto n = co_await s->async_read_some(asio::buffer(buf),
                                             asio::redirect_error(asio::use_awaitable, ec));
        if (ec)
            break;
        reader.feed(std::string_view(buf.data(), n));
        for (;;) {
            auto next = reader.next();
            if (std::holds_alternative<std::nullopt_t>(next))
                break;
            if (auto* garbage = std::get_if<std::string>(&next)) {
                why = "Redis at " + ep_.display + " sent something that is not RESP: " + *garbage;
                open = false;
                break;
            }
            if (socket_ != s || inflight_.empty()) { // a reply nobody asked for
                open = false;
                break;
            }
            auto p = std::move(inflight_.front());
            inflight_.pop_front();
            p->result = std::move(std::get<redis_value>(next));
            p->wake.cancel();
        }
    }
    if (socket_ != s)
        co_return; // closed: what was in flight has failed already
    boost::system::error_code ignored;
    s->close(ignored);
    socket_.reset();
    fail_all(why);
}

asio::awaitable<std::optional<std::string>> redis_client::connect() {
    if (socket_)
        co_return std::nullopt;
    if (auto waiting = connecting_) { // one connect at a time; the others wait for it
        boost::system::error_code ec;
        co_await waiting->async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (socket_)
            co_return std::nullopt;
        co_return connect_error_.value_or("Redis at " + ep_.display + " is not connected");
    }
    auto self = shared_from_this();
    auto done = connecting_ = std::make_shared<asio::steady_timer>(ex_, clock::time_point::max());
    struct land {
        std::shared_ptr<asio::steady_timer>& slot;
        std::shared_ptr<asio::steady_timer> done;
        ~land() {
            slot.reset();
            done->cancel();
        }
    } landing{connecting_, done};
    boost::system::error_code ec;
    auto found = co_await resolve_host(ex_, ep_.host, ep_.port);
    if (auto* why = std::get_if<std::string>(&found)) {
        connect_error_ = "cannot resolve the Redis host of " + ep_.display + ": " + *why;
        co_return connect_error_;
    }
    auto& results = std::get<0>(found);
    auto s = std::make_shared<tcp::socket>(ex_);
    asio::steady_timer bound(ex_, bound_);
    boost::system::error_code bound_ec;
    auto which =
        co_await (asio::async_connect(*s, results, asio::redirect_error(asio::use_awaitable, ec)) ||
                  bound.async_wait(asio::redirect_error(asio::use_awaitable, bound_ec)));
    if (which.index() == 1 || ec) {
        connect_error_ =
            "cannot connect to Redis at " + ep_.display + ": " +
            (which.index() == 1 ? "no answer within " + std::to_string(bound_.count()) + " ms"
                                : ec.message());
        co_return connect_error_;
    }
    s->set_option(tcp::no_delay(true));
    socket_ = s;
    connect_error_.reset();
    asio::co_spawn(ex_, read_loop(s), asio::detached);
    // Ahead of every command on this connection: its credentials and database. Their replies
    // are read in turn; a refusal shows in the replies of the commands that follow.
    if (ep_.password) {
        std::vector<std::string> auth{"AUTH"};
        if (ep_.user)
            auth.push_back(*ep_.user);
        auth.push_back(*ep_.password);
        enqueue(redis_command(auth), std::make_shared<pending>(ex_));
    }
    if (ep_.database != 0)
        enqueue(redis_command({"SELECT", std::to_string(ep_.database)}),
                std::make_shared<pending>(ex_));
    co_return std::nullopt;
}

asio::awaitable<std::variant<redis_value, std::string>>
redis_client::command(std::vector<std::string> args) {
    auto self = shared_from_this();
    auto deadline = clock::now() + bound_;
    if (auto failed = co_await connect())
        co_return *failed;
    auto p = std::make_shared<pending>(ex_);
    enqueue(redis_command(args), p);
    p->wake.expires_at(deadline);
    boost::system::error_code ec; // cancellation is the wake-up
    co_await p->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (p->result)
        co_return std::move(*p->result);
    // Past the bound: the reply, when it comes, is read and dropped (the order is kept).
    co_return "Redis at " + ep_.display + " did not answer within " +
        std::to_string(bound_.count()) + " ms";
}

} // namespace gate::transport
