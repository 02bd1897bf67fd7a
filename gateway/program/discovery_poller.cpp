#include "gateway/program/discovery_poller.hpp"

#include "config/discovery_containment.hpp"
#include "config/discovery_merge.hpp"
#include "transport/client/http_fetch.hpp"
#include "transport/client/upstream_connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gate::gateway::program {

namespace asio = boost::asio;

discovery_poller::discovery_poller(asio::io_context& io, apply_fn apply, count_fn count,
                                   std::shared_ptr<discovery_report> status)
    : io_(io), apply_(std::move(apply)), count_(std::move(count)), status_(std::move(status)),
      tls_(transport::make_client_tls_context()), timer_(io) {}

void discovery_poller::configure(std::shared_ptr<const config::document> configured) {
    bool same = configured_ && configured_->discovery == configured->discovery;
    configured_ = std::move(configured);
    if (same)
        return;
    ++generation_;
    timer_.cancel();
    served_.reset();
    served_refusals_.clear();
    rejected_.reset();
    outage_ = false;
    status_->set({});
    if (!configured_->discovery)
        return;
    for (const auto& line : config::containment_summary(*configured_->discovery))
        spdlog::info("{}", line);
    poll_after(std::chrono::milliseconds(0));
}

config::load_result
discovery_poller::merged(std::shared_ptr<const config::document> configured) const {
    if (!configured->discovery || !served_ || !configured_ ||
        !(configured_->discovery == configured->discovery))
        return {std::move(configured), {}};
    // The refusals are those of the document in force, logged and counted when it applied.
    auto m = config::merge_discovered(*configured, *served_);
    return {std::move(m.doc), std::move(m.errors)};
}

void discovery_poller::stop() {
    ++generation_;
    timer_.cancel();
}

void discovery_poller::poll_after(std::chrono::milliseconds delay) {
    timer_.expires_after(delay);
    timer_.async_wait([this, generation = generation_](boost::system::error_code ec) {
        if (!ec && generation == generation_)
            asio::co_spawn(io_, poll(generation), asio::detached);
    });
}

asio::awaitable<void> discovery_poller::poll(std::uint64_t generation) {
    // A copy: a reload may replace the configured document while the fetch is out.
    auto d = *configured_->discovery;
    transport::fetch_request req;
    req.url = d.url;
    req.timeout = std::chrono::seconds(10);
    req.max_body = 4 * 1024 * 1024;
    std::string failure;
    if (d.bearer_secret_ref) {
        const char* token = std::getenv(d.bearer_secret_ref->c_str());
        if (token && *token)
            req.headers.emplace_back("Authorization", std::string("Bearer ") + token);
        else
            failure = "the environment variable " + *d.bearer_secret_ref +
                      " (discovery.bearerSecretRef) is not set";
    }
    std::optional<std::string> body;
    if (failure.empty()) {
        auto answer = co_await http_fetch(io_.get_executor(), std::move(req), tls_);
        if (generation != generation_)
            co_return; // the source changed meanwhile: this answer is not its
        if (auto* why = std::get_if<std::string>(&answer))
            failure = *why;
        else if (auto& a = std::get<transport::fetch_answer>(answer); a.status != 200)
            failure = d.url + " answered HTTP " + std::to_string(a.status);
        else
            body = std::move(a.body);
    }
    settle(std::move(body), failure);
    poll_after(std::chrono::milliseconds(configured_->discovery->interval_ms));
}

void discovery_poller::settle(std::optional<std::string> body, const std::string& failure) {
    const auto& url = configured_->discovery->url;
    auto outcome = [&](const char* what, std::string problem, std::size_t refused = 0) {
        count_(what, refused);
        status_->set({what, std::chrono::system_clock::now(), std::move(problem), outage_});
    };
    if (!body) {
        if (!outage_)
            spdlog::warn("discovery: fetching {} failed ({}); the last applied upstreams keep "
                         "serving (said once per outage)",
                         url, failure);
        outage_ = true;
        outcome("error", failure);
        return;
    }
    if (outage_)
        spdlog::info("discovery: {} answers again", url);
    outage_ = false;
    if (served_ && *served_ == *body) {
        outcome("unchanged", served_refusals_);
        return;
    }
    auto merged = config::merge_discovered(*configured_, *body);
    std::optional<std::string> refused;
    if (!merged.doc)
        refused = config::one_line(merged.errors);
    else
        refused = apply_(merged.doc);
    if (refused) {
        outcome("rejected", *refused);
        if (rejected_ != body)
            spdlog::error("discovery: the document {} served was rejected, nothing of it "
                          "applied: {}",
                          url, *refused);
        rejected_ = std::move(body);
        return;
    }
    auto refusals = config::refusal_lines(merged.refused);
    for (const auto& line : refusals)
        spdlog::warn("discovery: {}", line);
    served_refusals_.clear();
    for (const auto& line : refusals)
        served_refusals_ += (served_refusals_.empty() ? "" : "; ") + line;
    outcome("applied", served_refusals_, refusals.size());
    served_ = std::move(body);
    rejected_.reset();
}

} // namespace gate::gateway::program
