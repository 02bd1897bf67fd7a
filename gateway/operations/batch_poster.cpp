#include "gateway/operations/batch_poster.hpp"

#include "transport/client/http_fetch.hpp"
#include "transport/client/upstream_connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace gate::gateway {

namespace asio = boost::asio;
using result = actors::batcher::result;

result classify_batch_status(unsigned status) {
    if (status >= 200 && status < 300)
        return result::delivered;
    if (status == 408 || status == 429 || status >= 500)
        return result::failed;
    return result::refused;
}

namespace {

asio::awaitable<void> deliver(asio::any_io_executor ex, actors::batch_post d,
                              std::shared_ptr<asio::ssl::context> tls,
                              std::chrono::milliseconds timeout) {
    transport::fetch_request req;
    req.url = std::move(d.url);
    req.method = "POST";
    req.body = std::move(d.body);
    req.content_type = std::move(d.content_type);
    req.headers = std::move(d.headers);
    req.timeout = timeout;
    req.max_body = 64 * 1024; // the receiver's answer is not read; a bound, not a need
    auto answer = co_await http_fetch(ex, std::move(req), std::move(tls));
    if (auto* why = std::get_if<std::string>(&answer)) {
        d.reply({result::failed, *why});
        co_return;
    }
    auto status = std::get<transport::fetch_answer>(answer).status;
    d.reply({classify_batch_status(status), "HTTP " + std::to_string(status)});
}

} // namespace

actors::batch_poster make_batch_poster(asio::io_context& io, std::chrono::milliseconds timeout) {
    auto tls = transport::make_client_tls_context();
    return [ex = io.get_executor(), tls, timeout](actors::batch_post d) {
        asio::co_spawn(ex, deliver(ex, std::move(d), tls, timeout), asio::detached);
    };
}

} // namespace gate::gateway
