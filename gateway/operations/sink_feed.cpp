// The io thread's side of the audit and span sinks: what requests finished in one turn of the
// loop goes to each sink as one message, posted to run after the handlers already queued. A
// busy gateway then wakes its sinks (actor threads that share the cores with the io thread) a
// few hundred times a second instead of once per request; a quiet one sends each event at
// once, since the turn ends right after its request.
#include "gateway/entry/gateway_impl.hpp"

#include <boost/asio/post.hpp>
#include <caf/send.hpp>

namespace gate::transport {

namespace {

void feed(gateway::impl& g) {
    g.feed_posted = false;
    auto actors = g.actors();
    if (!g.audit_pending.empty()) {
        if (actors->audit)
            actors->audit.offer_all(std::exchange(g.audit_pending, {}));
        else
            g.audit_pending.clear();
    }
    if (!g.spans_pending.empty()) {
        if (actors->spans)
            caf::anon_send(actors->spans, span_batch{std::exchange(g.spans_pending, {})});
        else
            g.spans_pending.clear();
    }
}

void post_feed(gateway::impl& g) {
    if (g.feed_posted)
        return;
    g.feed_posted = true;
    boost::asio::post(g.io, [&g] { feed(g); });
}

} // namespace

void gateway::feed_sinks() {
    feed(*impl_);
}

void gateway::impl::queue_audit(audit_event e) {
    audit_pending.push_back(std::move(e));
    post_feed(*this);
}

void gateway::impl::queue_spans(std::vector<std::string> spans) {
    for (auto& s : spans)
        spans_pending.push_back(std::move(s));
    post_feed(*this);
}

} // namespace gate::transport
