// GET /icons/{namespace}/{digest}: the upstreams' icons served from gate's own origin
// (protocol/icons.hpp says which icons are rewritten to these URLs and why). An icon is
// fetched from its upstream only when its URL was written into a list (or a serverInfo)
// this process served, without credentials (no Authorization, no cookie, nothing of the
// client's), without following redirects, within icon_limits' size and time, and served only
// when its first bytes are PNG, JPEG, GIF or WebP, with that type, `nosniff` and a CSP that
// allows nothing. Answers are cached in memory, bounded (docs/security.md, Icons).
#pragma once

#include "actors/federation/snapshot.hpp"
#include "gateway/pipeline/call_services.hpp"
#include "protocol/icons.hpp"
#include "transport/http/http_reply.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::gateway {

struct icon_limits {
    std::size_t per_namespace = 1024;        // icons remembered per namespace (oldest forgotten)
    std::size_t cache_entries = 512;         // fetched icons (and failures) kept
    std::size_t cache_bytes = 16u << 20;     // their bytes together
    std::size_t max_bytes = 256 * 1024;      // one icon
    std::chrono::milliseconds timeout{5000}; // one fetch, connect to last byte
    std::chrono::seconds ttl{600};           // a fetched icon
    std::chrono::seconds failure_ttl{30};    // a failed fetch, answered 502 meanwhile
    std::size_t in_flight = 16;              // fetches under way at once (then 503)
};

// Which src each digest stands for, per namespace: what the rewrite wrote (bounded, oldest
// forgotten first).
// Shared by every io thread's proxy (docs/io-threads.md): a list served by one thread names icons
// a client fetches on any. Written when a list is rewritten, read when an icon is served.
class icon_registry {
public:
    explicit icon_registry(std::size_t per_namespace) : per_namespace_(per_namespace) {}
    void keep(const std::string& ns, std::string_view digest, std::string_view src);
    std::optional<std::string> find(const std::string& ns, const std::string& digest) const;
    std::size_t size(const std::string& ns) const;

private:
    mutable std::mutex mutex_;
    struct one_namespace {
        std::map<std::string, std::string, std::less<>> src_of; // by digest
        std::deque<std::string> order;                          // digests, oldest first
    };
    std::size_t per_namespace_;
    std::map<std::string, one_namespace, std::less<>> namespaces_;
};

// What a fetch gave, kept until `expires`: the image and its type, or why it failed.
struct fetched_icon {
    std::shared_ptr<const std::string> body; // null: failed
    protocol::image_type type = protocol::image_type::png;
    std::string failure; // what the client is told: what went wrong, never where
    std::string detail;  // for gate's log: the fetch's own words, the icon's URL in them
    std::chrono::steady_clock::time_point expires;
};

// Fetched icons by namespace and digest, bounded in count and bytes (the entry expiring first
// goes first). Time is passed in.
class icon_cache {
public:
    using time_point = std::chrono::steady_clock::time_point;
    icon_cache(std::size_t entries, std::size_t bytes) : max_entries_(entries), max_bytes_(bytes) {}
    const fetched_icon* find(const std::string& key, time_point now);
    void put(const std::string& key, fetched_icon icon, time_point now);
    std::size_t bytes() const { return bytes_; }
    std::size_t size() const { return entries_.size(); }

private:
    void erase(std::map<std::string, fetched_icon>::iterator it);
    std::size_t max_entries_, max_bytes_, bytes_ = 0;
    std::map<std::string, fetched_icon> entries_;
};

// The fetch of one src (http_fetch in the product; a fake in tests): the status, the body, or
// what failed.
struct icon_answer {
    unsigned status = 0;
    std::string body;
};
using icon_fetcher = std::function<boost::asio::awaitable<std::variant<icon_answer, std::string>>(
    std::string url, const icon_limits& limits)>;

// Stage 8 rewrites a call's icons through it (pipeline::icon_rewriter).
class icon_proxy final : public pipeline::icon_rewriter {
public:
    // Serves the icons `first` registers too, and registers its own there: the io threads'
    // proxies share one registry (docs/io-threads.md). Before the first list is rewritten.
    void share_registry_of(const icon_proxy& first) { registry_ = first.registry_; }
    // `dropped`: an icon left out of a list, by upstream id and reason (the metric).
    explicit icon_proxy(std::function<void(const std::string&, std::string_view)> dropped,
                        icon_limits limits = {}, icon_fetcher fetch = {});

    // The icons of the items of a list upstream `upstream` of `snap` answered (`what`: the
    // method, for the log line), rewritten for gate's origin and remembered. Passthrough:
    // nothing changes.
    void rewrite_list(const actors::snapshot& snap, std::size_t upstream, std::string_view what,
                      boost::json::array& items);
    // A call's or a prompt's content blocks, wherever they reach a client (pipeline::client_bound).
    void rewrite_icons(const actors::snapshot& snap, std::size_t upstream, std::string_view what,
                       boost::json::array& items) override {
        rewrite_list(snap, upstream, what, items);
    }
    // The same for one object holding `icons` (a serverInfo, each time /api/federation is
    // read): what it leaves out is logged and counted only when it differs from the last time.
    void rewrite_one(const actors::snapshot& snap, std::size_t upstream, std::string_view what,
                     boost::json::object& holder);

    // The answer to a request for `path` (under /icons/) on the current snapshot.
    boost::asio::awaitable<transport::http_reply>
    serve(std::shared_ptr<const actors::snapshot> snap, std::string_view path, bool get);

    // How an icon this instance never listed is learnt: the upstream's lists and identity,
    // rewritten here (another instance of a fleet listed it, or this one before a restart).
    // Asked at most once per `relearn_interval` per namespace, whatever paths are asked for.
    using learner = std::function<boost::asio::awaitable<void>(
        std::shared_ptr<const actors::snapshot>, std::size_t)>;
    void learn_through(learner learn) { learn_ = std::move(learn); }
    static constexpr std::chrono::seconds relearn_interval{30};

private:
    // Where upstream `i`'s icons go (null: passthrough, or an unusable namespace).
    std::optional<protocol::icon_site> site_of(const actors::snapshot& snap, std::size_t i) const;
    // What a rewrite left out: each icon's reason, the first one named for the log.
    struct left_out {
        std::vector<std::string_view> reasons; // drop_label's static texts
        std::string first;
    };
    void rewrite(const actors::snapshot& snap, std::size_t upstream, boost::json::object& holder,
                 left_out& dropped);
    void report(const std::string& upstream, const left_out& dropped);
    boost::asio::awaitable<fetched_icon> fetch(const std::string& src);

    std::function<void(const std::string&, std::string_view)> dropped_;
    icon_limits limits_;
    icon_fetcher fetch_;
    std::shared_ptr<icon_registry> registry_;
    icon_cache cache_;
    std::size_t in_flight_ = 0;
    learner learn_;
    std::map<std::string, std::chrono::steady_clock::time_point> learnt_; // by namespace
    // The src of `digest` under namespace `ns` (of upstream `upstream`), learnt first when
    // this instance does not know it and may ask again.
    boost::asio::awaitable<std::optional<std::string>>
    src_of(std::shared_ptr<const actors::snapshot> snap, std::size_t upstream,
           const std::string& ns, const std::string& digest);
    // What rewrite_one last said of each upstream's serverInfo (by id).
    std::map<std::string, std::string> reported_;
};

} // namespace gate::gateway
