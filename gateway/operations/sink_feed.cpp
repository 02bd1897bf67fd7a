#include "gateway/operations/sink_feed.hpp"

#include "actors/supervision/supervisor.hpp"

#include <boost/asio/post.hpp>
#include <caf/send.hpp>
#include <utility>

namespace gate::gateway {

void sink_feed::feed() {
    posted_ = false;
    if (audit_.empty() && spans_.empty())
        return;
    to_.send(std::exchange(audit_, {}), std::exchange(spans_, {}));
}

void sink_feed::post() {
    if (posted_)
        return;
    posted_ = true;
    boost::asio::post(ex_, [this] { feed(); });
}

void sink_feed::audit(actors::audit_event e) {
    audit_.push_back(std::move(e));
    post();
}

void sink_feed::spans(std::vector<std::string> spans) {
    for (auto& s : spans)
        spans_.push_back(std::move(s));
    post();
}

void current_sinks::send(std::vector<actors::audit_event> audit, std::vector<std::string> spans) {
    auto actors = actors_.load();
    if (!audit.empty() && actors->audit)
        actors->audit.offer_all(std::move(audit));
    if (!spans.empty() && actors->spans)
        caf::anon_send(actors->spans, actors::span_batch{std::move(spans)});
}

} // namespace gate::gateway
