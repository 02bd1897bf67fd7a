#include "gateway/program/embedded.hpp"

#include "config/load.hpp"
#include "gateway/program/gateway_host.hpp"

#include <boost/asio/post.hpp>
#include <future>
#include <stdexcept>
#include <thread>

namespace gate::gateway {

namespace {

std::string errors_text(const std::vector<config::error>& errors) {
    std::string out;
    for (const auto& e : errors)
        out += (out.empty() ? "" : "\n") + std::string("config error at ") +
               (e.pointer.empty() ? "(document)" : e.pointer) + ": " + e.reason;
    return out;
}

config::load_result parse_inline(std::string_view json) {
    return config::parse(json);
}

} // namespace

struct embedded_gateway::impl {
    std::unique_ptr<program::gateway_host> host;
    std::string url; // the server section cannot change on reload: fixed at start
    std::thread runner;
    bool stopped = false;
};

embedded_gateway::embedded_gateway(std::unique_ptr<impl> i) : impl_(std::move(i)) {}

std::unique_ptr<embedded_gateway> embedded_gateway::start(std::string_view config_json,
                                                          embedded_options opt) {
    auto loaded = parse_inline(config_json);
    if (!loaded.errors.empty())
        throw std::invalid_argument(errors_text(loaded.errors));
    auto i = std::make_unique<impl>();
    i->host = std::make_unique<program::gateway_host>(
        loaded.doc, program::gateway_host::options{opt.host, opt.port, false, std::nullopt});
    i->url = "http://" +
             (opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host) + ":" +
             std::to_string(i->host->port()) + loaded.doc->server.mcp_path;
    i->runner = std::thread([h = i->host.get()] { h->io().run(); });
    return std::unique_ptr<embedded_gateway>(new embedded_gateway(std::move(i)));
}

embedded_gateway::~embedded_gateway() {
    stop();
}

std::uint16_t embedded_gateway::port() const {
    return impl_->host->port();
}

std::string embedded_gateway::url() const {
    return impl_->url;
}

std::optional<std::string> embedded_gateway::reload(std::string_view config_json) {
    if (impl_->stopped)
        return std::string("the gateway is stopped");
    auto loaded = parse_inline(config_json);
    if (!loaded.errors.empty())
        return errors_text(loaded.errors);
    // Applied on the gateway's own thread, like every reload.
    std::promise<std::optional<std::string>> done;
    auto answer = done.get_future();
    boost::asio::post(impl_->host->io(), [&] { done.set_value(impl_->host->reload(loaded.doc)); });
    return answer.get();
}

void embedded_gateway::stop() {
    if (!impl_ || impl_->stopped)
        return;
    impl_->stopped = true;
    boost::asio::post(impl_->host->io(),
                      [h = impl_->host.get()] { h->drain(std::chrono::seconds(10)); });
    impl_->runner.join();
    impl_->host.reset();
}

} // namespace gate::gateway
