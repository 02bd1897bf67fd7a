#include "gateway/mcp/icon_proxy.hpp"

#include "protocol/param_headers.hpp"
#include "transport/client/http_fetch.hpp"

#include <boost/beast/http/status.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
namespace http = boost::beast::http;
using clock = std::chrono::steady_clock;

void icon_registry::keep(const std::string& ns, std::string_view digest, std::string_view src) {
    std::lock_guard lock(mutex_);
    auto& space = namespaces_[ns];
    if (space.src_of.find(digest) != space.src_of.end())
        return;
    space.src_of.emplace(std::string(digest), std::string(src));
    space.order.emplace_back(digest);
    while (space.order.size() > per_namespace_) {
        space.src_of.erase(space.order.front());
        space.order.pop_front();
    }
}

std::optional<std::string> icon_registry::find(const std::string& ns,
                                               const std::string& digest) const {
    std::lock_guard lock(mutex_);
    auto space = namespaces_.find(ns);
    if (space == namespaces_.end())
        return std::nullopt;
    auto it = space->second.src_of.find(digest);
    if (it == space->second.src_of.end())
        return std::nullopt;
    return it->second;
}

std::size_t icon_registry::size(const std::string& ns) const {
    std::lock_guard lock(mutex_);
    auto space = namespaces_.find(ns);
    return space == namespaces_.end() ? 0 : space->second.src_of.size();
}

const fetched_icon* icon_cache::find(const std::string& key, time_point now) {
    auto it = entries_.find(key);
    if (it == entries_.end())
        return nullptr;
    if (it->second.expires <= now) {
        erase(it);
        return nullptr;
    }
    return &it->second;
}

void icon_cache::erase(std::map<std::string, fetched_icon>::iterator it) {
    bytes_ -= it->second.body ? it->second.body->size() : 0;
    entries_.erase(it);
}

void icon_cache::put(const std::string& key, fetched_icon icon, time_point now) {
    if (auto it = entries_.find(key); it != entries_.end())
        erase(it);
    std::size_t size = icon.body ? icon.body->size() : 0;
    if (size > max_bytes_ || max_entries_ == 0)
        return;
    std::erase_if(entries_, [&](const auto& e) {
        if (e.second.expires > now)
            return false;
        bytes_ -= e.second.body ? e.second.body->size() : 0;
        return true;
    });
    while (!entries_.empty() && (entries_.size() >= max_entries_ || bytes_ + size > max_bytes_)) {
        auto first = entries_.begin();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->second.expires < first->second.expires)
                first = it;
        erase(first);
    }
    bytes_ += size;
    entries_.emplace(key, std::move(icon));
}

namespace {

asio::awaitable<std::variant<icon_answer, std::string>> fetch_over_http(std::string url,
                                                                        const icon_limits& limits) {
    transport::fetch_request req;
    req.url = std::move(url);
    req.timeout = limits.timeout;
    req.max_body = limits.max_bytes;
    // Nothing of the client's and none of the upstream's credentials: what gate sends is
    // http_fetch's own Host, User-Agent and Connection, and this Accept.
    req.headers.emplace_back("Accept", "image/png, image/jpeg, image/gif, image/webp");
    auto ex = co_await asio::this_coro::executor;
    auto r = co_await http_fetch(ex, std::move(req));
    if (auto* failed = std::get_if<std::string>(&r))
        co_return std::move(*failed);
    auto& a = std::get<transport::fetch_answer>(r);
    co_return icon_answer{a.status, std::move(a.body)};
}

// What the client of /icons/ (which needs no token) is told of a fetch that failed: what went
// wrong, in gate's words. http_fetch's own name the icon's URL, the upstream's address.
std::string icon_fetch_failure(std::string_view why, const icon_limits& limits) {
    auto has = [&](std::string_view s) { return why.find(s) != std::string_view::npos; };
    if (has("did not answer within") || has("timeout after"))
        return "it did not answer within " + std::to_string(limits.timeout.count()) + " ms";
    if (has("answered more than"))
        return "its answer was more than " + std::to_string(limits.max_bytes) + " bytes";
    if (has("cannot resolve"))
        return "its host name could not be resolved";
    return "it could not be reached";
}

transport::http_reply plain(http::status status, std::string text) {
    auto reply = transport::http_reply::text(status, std::move(text) + "\n");
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    reply.headers.emplace_back("Cache-Control", "no-store");
    return reply;
}

} // namespace

icon_proxy::icon_proxy(std::function<void(const std::string&, std::string_view)> dropped,
                       icon_limits limits, icon_fetcher fetch)
    : dropped_(std::move(dropped)), limits_(limits),
      fetch_(fetch ? std::move(fetch) : icon_fetcher(fetch_over_http)),
      registry_(std::make_shared<icon_registry>(limits.per_namespace)),
      cache_(limits.cache_entries, limits.cache_bytes) {}

std::optional<protocol::icon_site> icon_proxy::site_of(const actors::snapshot& snap,
                                                       std::size_t i) const {
    if (snap.codec.passthrough() || i >= snap.size())
        return std::nullopt;
    const auto& u = snap.upstream(i);
    if (!u.namespace_)
        return std::nullopt;
    protocol::icon_site site;
    for (const auto& url : u.urls)
        if (auto o = protocol::http_origin(url))
            site.origins.push_back(std::move(*o));
    // Absolute on gate's public origin when the configuration names it (auth.resource, the
    // URL clients are told is gate); a path otherwise, resolved against gate's URL.
    if (const auto& resource = snap.doc->auth.resource)
        if (auto o = protocol::http_origin(*resource))
            site.base = *o;
    site.base +=
        std::string(protocol::icon_path_prefix) + protocol::icon_path_segment(*u.namespace_) + "/";
    return site;
}

void icon_proxy::rewrite(const actors::snapshot& snap, std::size_t upstream, json::object& holder,
                         left_out& dropped) {
    if (!holder.contains("icons"))
        return;
    auto site = site_of(snap, upstream);
    if (!site)
        return;
    const auto& u = snap.upstream(upstream);
    protocol::icon_hooks hooks;
    hooks.keep = [&](std::string_view digest, std::string_view src) {
        registry_->keep(*u.namespace_, digest, src);
    };
    hooks.dropped = [&](protocol::icon_drop why, std::string_view src) {
        if (dropped.reasons.empty())
            dropped.first =
                std::string(protocol::drop_label(why)) + ": " + protocol::printable(src, 200);
        dropped.reasons.push_back(protocol::drop_label(why));
    };
    protocol::rewrite_icons(holder, *site, hooks);
}

void icon_proxy::report(const std::string& upstream, const left_out& dropped) {
    if (dropped_)
        for (auto why : dropped.reasons)
            dropped_(upstream, why);
}

void icon_proxy::rewrite_list(const actors::snapshot& snap, std::size_t upstream,
                              std::string_view what, json::array& items) {
    left_out dropped;
    for (auto& item : items)
        if (auto* o = item.if_object())
            rewrite(snap, upstream, *o, dropped);
    if (dropped.reasons.empty())
        return;
    const auto& id = snap.upstream(upstream).id;
    report(id, dropped);
    spdlog::warn("upstream {}: {} icon(s) left out of {} (gate serves only icons on the "
                 "upstream's own origin, and data: ones); first: {}",
                 id, dropped.reasons.size(), what, dropped.first);
}

void icon_proxy::rewrite_one(const actors::snapshot& snap, std::size_t upstream,
                             std::string_view what, json::object& holder) {
    left_out dropped;
    rewrite(snap, upstream, holder, dropped);
    const auto& id = snap.upstream(upstream).id;
    // Said and counted once per change: the console reads it every 5 s.
    auto said = std::to_string(dropped.reasons.size()) + " " + dropped.first;
    auto& last = reported_[id];
    if (dropped.reasons.empty() || last == said)
        return;
    last = std::move(said);
    report(id, dropped);
    spdlog::warn("upstream {}: {} icon(s) left out of {}; first: {}", id, dropped.reasons.size(),
                 what, dropped.first);
}

asio::awaitable<fetched_icon> icon_proxy::fetch(const std::string& src) {
    fetched_icon out;
    out.expires = clock::now() + limits_.failure_ttl;
    auto r = co_await fetch_(src, limits_);
    if (auto* failed = std::get_if<std::string>(&r)) {
        out.failure =
            "the upstream's icon could not be fetched: " + icon_fetch_failure(*failed, limits_);
        out.detail = std::move(*failed);
        co_return out;
    }
    auto& a = std::get<icon_answer>(r);
    if (a.status != 200) {
        out.failure = "the upstream answered HTTP " + std::to_string(a.status) +
                      (a.status >= 300 && a.status < 400 ? " (gate follows no redirect)" : "");
        co_return out;
    }
    if (a.body.size() > limits_.max_bytes) {
        out.failure = "the upstream's icon is over " + std::to_string(limits_.max_bytes) + " bytes";
        co_return out;
    }
    auto type = protocol::sniff_image(a.body);
    if (!type) {
        out.failure = "the upstream's icon is not PNG, JPEG, GIF or WebP by its first bytes "
                      "(gate serves no other type, SVG included)";
        co_return out;
    }
    out.type = *type;
    out.body = std::make_shared<const std::string>(std::move(a.body));
    out.expires = clock::now() + limits_.ttl;
    co_return out;
}

asio::awaitable<std::optional<std::string>>
icon_proxy::src_of(std::shared_ptr<const actors::snapshot> snap, std::size_t upstream,
                   const std::string& ns, const std::string& digest) {
    if (auto known = registry_->find(ns, digest))
        co_return known;
    auto now = clock::now();
    auto& last = learnt_[ns];
    if (!learn_ || (last != clock::time_point{} && now - last < relearn_interval))
        co_return std::nullopt;
    last = now;
    co_await learn_(std::move(snap), upstream);
    co_return registry_->find(ns, digest);
}

asio::awaitable<transport::http_reply>
icon_proxy::serve(std::shared_ptr<const actors::snapshot> snap, std::string_view path, bool get) {
    auto parsed = protocol::parse_icon_path(path);
    if (!parsed)
        co_return plain(http::status::not_found, "no such icon: gate's icons are "
                                                 "/icons/{namespace}/{32 hex digits}");
    if (!get) {
        auto reply = plain(http::status::method_not_allowed, "icons are read with GET");
        reply.headers.emplace_back("Allow", "GET");
        co_return reply;
    }
    auto& [ns, digest] = *parsed;
    std::optional<std::size_t> upstream;
    for (std::size_t i = 0; i < snap->size(); ++i)
        if (!snap->codec.passthrough() && snap->upstream(i).namespace_ == ns)
            upstream = i;
    auto src = upstream ? co_await src_of(snap, *upstream, ns, digest) : std::nullopt;
    // The upstream may have moved since the list was served: its icon is fetched only from
    // where it is now.
    auto site = upstream ? site_of(*snap, *upstream) : std::nullopt;
    auto origin = src ? protocol::http_origin(*src) : std::nullopt;
    bool ours = false;
    for (const auto& o : site ? site->origins : std::vector<std::string>{})
        ours = ours || (origin && o == *origin);
    if (!ours)
        co_return plain(http::status::not_found,
                        "no such icon: gate serves the icons of the lists it served, by their "
                        "namespace and digest");
    auto key = ns + '\n' + digest;
    const fetched_icon* hit = cache_.find(key, clock::now());
    std::optional<fetched_icon> fresh;
    if (!hit) {
        if (in_flight_ >= limits_.in_flight) {
            auto reply = plain(http::status::service_unavailable, "too many icons being fetched");
            reply.headers.emplace_back("Retry-After", "1");
            co_return reply;
        }
        ++in_flight_;
        std::string from = *src; // the registry may forget it meanwhile
        fresh = co_await fetch(from);
        --in_flight_;
        if (!fresh->body)
            spdlog::warn(
                "icon {} of namespace {} ({}): {}", digest, ns, protocol::printable(from, 200),
                fresh->detail.empty() ? fresh->failure : protocol::printable(fresh->detail, 400));
        cache_.put(key, *fresh, clock::now());
        hit = &*fresh;
    }
    if (!hit->body)
        co_return plain(http::status::bad_gateway, hit->failure);
    auto left = std::chrono::duration_cast<std::chrono::seconds>(hit->expires - clock::now());
    transport::http_reply reply{
        http::status::ok, std::string(protocol::image_mime(hit->type)), *hit->body, {}, false};
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    reply.headers.emplace_back("Content-Security-Policy", "default-src 'none'");
    reply.headers.emplace_back("Cache-Control",
                               "max-age=" + std::to_string(std::max<long long>(0, left.count())));
    co_return reply;
}

} // namespace gate::gateway
