// GET /icons/{namespace}/{digest} (gateway/mcp/icon_proxy) over a fake fetch: a list's
// icons rewritten and remembered per namespace (bounded), served with the sniffed type and the
// headers that keep a browser from running them, cached; an unknown digest or namespace 404,
// a failed, redirected, oversized or non-image answer 502; passthrough rewrites nothing.
#include "gateway/mcp/icon_proxy.hpp"
#include "test_config.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace gate::gateway {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using status = boost::beast::http::status;

const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "rest-of-a-png";

std::string header(const transport::http_reply& r, std::string_view name) {
    for (const auto& [k, v] : r.headers)
        if (k == name)
            return v;
    return {};
}

struct rig {
    std::shared_ptr<const actors::snapshot> snap = test::two_upstreams(); // http://127.0.0.1:1/mcp
    std::map<std::string, std::variant<icon_answer, std::string>> answers;
    std::vector<std::string> fetched;
    std::vector<std::string> dropped;
    icon_limits limits;
    std::unique_ptr<icon_proxy> proxy;

    explicit rig(icon_limits l = {}) : limits(l) {
        proxy = std::make_unique<icon_proxy>(
            [this](const std::string& up, std::string_view why) {
                dropped.push_back(up + ":" + std::string(why));
            },
            limits,
            [this](std::string url,
                   const icon_limits&) -> asio::awaitable<std::variant<icon_answer, std::string>> {
                fetched.push_back(url);
                auto it = answers.find(url);
                if (it == answers.end()) // http_fetch's words name the URL
                    co_return url + ": connection refused";
                co_return it->second;
            });
    }

    // The src gate wrote for `src` in a tools list of upstream `i`.
    std::string listed(std::size_t i, const std::string& src) {
        json::array items{json::object{{"name", "t"}, {"icons", {json::object{{"src", src}}}}}};
        proxy->rewrite_list(*snap, i, "tools/list", items);
        const auto& o = items[0].as_object();
        if (!o.contains("icons"))
            return {};
        return std::string(o.at("icons").as_array()[0].at("src").as_string());
    }

    transport::http_reply get(const std::string& path, bool is_get = true) {
        asio::io_context io;
        transport::http_reply out;
        asio::co_spawn(io, proxy->serve(snap, path, is_get),
                       [&](std::exception_ptr e, transport::http_reply r) {
                           if (e)
                               std::rethrow_exception(e);
                           out = std::move(r);
                       });
        io.run();
        return out;
    }
};

TEST(icon_proxy, a_listed_icon_is_served_from_gate_with_its_sniffed_type) {
    rig r;
    r.answers["http://127.0.0.1:1/i.png"] = icon_answer{200, png};
    auto path = r.listed(1, "http://127.0.0.1:1/i.png");
    EXPECT_EQ(path, "/icons/b/" + protocol::icon_digest("http://127.0.0.1:1/i.png"));
    auto reply = r.get(path);
    EXPECT_EQ(reply.status, status::ok);
    EXPECT_EQ(reply.content_type, "image/png");
    EXPECT_EQ(reply.body, png);
    EXPECT_EQ(header(reply, "X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(header(reply, "Content-Security-Policy"), "default-src 'none'");
    EXPECT_TRUE(header(reply, "Cache-Control").starts_with("max-age="));
    // Cached: the second request fetches nothing.
    EXPECT_EQ(r.get(path).body, png);
    EXPECT_EQ(r.fetched.size(), 1u);
}

TEST(icon_proxy, the_origin_of_auth_resource_makes_urls_absolute) {
    rig r;
    auto doc = std::make_shared<config::document>(*r.snap->doc);
    doc->auth.resource = "https://GW.example/mcp";
    r.snap = actors::make_snapshot(doc, 2);
    EXPECT_EQ(r.listed(0, "http://127.0.0.1:1/i.png"),
              "https://gw.example/icons/a/" + protocol::icon_digest("http://127.0.0.1:1/i.png"));
}

TEST(icon_proxy, other_origins_are_dropped_and_counted) {
    rig r;
    EXPECT_EQ(r.listed(0, "http://127.0.0.2:1/i.png"), "");
    EXPECT_EQ(r.listed(0, "http://127.0.0.1:2/i.png"), "");
    EXPECT_EQ(r.dropped, (std::vector<std::string>{"up-a:other_origin", "up-a:other_origin"}));
    EXPECT_TRUE(r.fetched.empty());
}

TEST(icon_proxy, a_server_info_read_again_and_again_is_counted_once) {
    rig r;
    for (int i = 0; i < 3; ++i) {
        json::object info{{"name", "s"},
                          {"icons",
                           {json::object{{"src", "http://127.0.0.1:1/s.png"}},
                            json::object{{"src", "https://elsewhere.example/s.png"}}}}};
        r.proxy->rewrite_one(*r.snap, 0, "serverInfo", info);
        ASSERT_EQ(info.at("icons").as_array().size(), 1u);
        EXPECT_EQ(info.at("icons").as_array()[0].at("src").as_string(),
                  "/icons/a/" + protocol::icon_digest("http://127.0.0.1:1/s.png"));
    }
    EXPECT_EQ(r.dropped, (std::vector<std::string>{"up-a:other_origin"}));
}

TEST(icon_proxy, unknown_digests_and_namespaces_are_404) {
    rig r;
    auto path = r.listed(0, "http://127.0.0.1:1/i.png");
    auto digest = protocol::icon_digest("http://127.0.0.1:1/i.png");
    EXPECT_EQ(r.get("/icons/a/" + protocol::icon_digest("other")).status, status::not_found);
    EXPECT_EQ(r.get("/icons/b/" + digest).status, status::not_found); // another namespace's
    EXPECT_EQ(r.get("/icons/zz/" + digest).status, status::not_found);
    EXPECT_EQ(r.get("/icons/../" + digest).status, status::not_found);
    EXPECT_EQ(r.get("/icons/%2e%2e/a/" + digest).status, status::not_found);
    EXPECT_EQ(r.get(path, false).status, status::method_not_allowed);
    EXPECT_TRUE(r.fetched.empty());
}

TEST(icon_proxy, failures_are_502_and_remembered_a_while) {
    rig r;
    r.answers["http://127.0.0.1:1/svg"] = icon_answer{200, "<svg xmlns='x'><script/></svg>"};
    r.answers["http://127.0.0.1:1/moved"] = icon_answer{302, ""};
    r.answers["http://127.0.0.1:1/big"] = icon_answer{200, png + std::string(256 * 1024, 'x')};
    for (auto src : {"svg", "moved", "big", "refused"}) {
        auto reply = r.get(r.listed(0, std::string("http://127.0.0.1:1/") + src));
        EXPECT_EQ(reply.status, status::bad_gateway) << src;
        EXPECT_EQ(reply.content_type, "text/plain; charset=utf-8");
    }
    EXPECT_NE(r.get(r.listed(0, "http://127.0.0.1:1/svg")).body.find("SVG"), std::string::npos);
    EXPECT_NE(r.get(r.listed(0, "http://127.0.0.1:1/moved")).body.find("redirect"),
              std::string::npos);
    EXPECT_EQ(r.fetched.size(), 4u); // the failures were cached
    // /icons/ needs no token: a refusal says what went wrong, never where the upstream is.
    auto refused = r.get(r.listed(0, "http://127.0.0.1:1/refused")).body;
    EXPECT_EQ(refused, "the upstream's icon could not be fetched: it could not be reached\n");
}

TEST(icon_proxy, an_upstream_moved_elsewhere_serves_no_old_icon) {
    rig r;
    r.answers["http://127.0.0.1:1/i.png"] = icon_answer{200, png};
    auto path = r.listed(0, "http://127.0.0.1:1/i.png");
    auto doc = std::make_shared<config::document>(*r.snap->doc);
    doc->upstreams[0].urls = {"http://10.0.0.9:1/mcp"};
    r.snap = actors::make_snapshot(doc, 2);
    EXPECT_EQ(r.get(path).status, status::not_found);
    EXPECT_TRUE(r.fetched.empty());
}

TEST(icon_proxy, passthrough_rewrites_nothing) {
    rig r;
    auto doc = std::make_shared<config::document>(*r.snap->doc);
    doc->upstreams.resize(1);
    doc->upstreams[0].namespace_.reset();
    r.snap = actors::make_snapshot(doc, 2);
    EXPECT_EQ(r.listed(0, "http://127.0.0.2:9/i.png"), "http://127.0.0.2:9/i.png");
    EXPECT_TRUE(r.dropped.empty());
}

TEST(icon_proxy, the_registry_forgets_the_oldest_past_its_bound) {
    icon_registry reg(2);
    reg.keep("a", "d1", "s1");
    reg.keep("a", "d2", "s2");
    reg.keep("a", "d1", "s1"); // known: no change
    reg.keep("a", "d3", "s3");
    EXPECT_EQ(reg.size("a"), 2u);
    EXPECT_EQ(reg.find("a", "d1"), std::nullopt);
    EXPECT_EQ(reg.find("a", "d3"), "s3");
    EXPECT_EQ(reg.find("b", "d3"), std::nullopt);
}

TEST(icon_proxy, the_cache_is_bounded_in_entries_bytes_and_time) {
    using clock = std::chrono::steady_clock;
    auto now = clock::now();
    auto icon = [&](std::size_t size, int seconds) {
        return fetched_icon{std::make_shared<const std::string>(size, 'x'),
                            protocol::image_type::png, "", "", now + std::chrono::seconds(seconds)};
    };
    icon_cache cache(2, 100);
    cache.put("a", icon(40, 10), now);
    cache.put("b", icon(40, 20), now);
    cache.put("c", icon(40, 30), now); // over two entries: "a" expires first, goes
    EXPECT_EQ(cache.find("a", now), nullptr);
    EXPECT_NE(cache.find("b", now), nullptr);
    EXPECT_EQ(cache.bytes(), 80u);
    cache.put("d", icon(70, 40), now); // over 100 bytes: both others go
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(cache.bytes(), 70u);
    cache.put("e", icon(101, 40), now); // bigger than the cache: not kept
    EXPECT_EQ(cache.find("e", now), nullptr);
    EXPECT_EQ(cache.find("d", now + std::chrono::seconds(41)), nullptr); // expired
    EXPECT_EQ(cache.bytes(), 0u);
}

} // namespace
} // namespace gate::gateway

namespace gate::gateway {
namespace {

TEST(icon_proxy, a_digest_never_listed_here_is_learnt_once_per_interval) {
    rig r;
    r.answers["http://127.0.0.1:1/i.png"] = icon_answer{200, png};
    int learnt = 0;
    // What another instance listed: this one learns it by listing (here: rewriting) itself.
    r.proxy->learn_through([&](std::shared_ptr<const actors::snapshot>,
                               std::size_t upstream) -> asio::awaitable<void> {
        ++learnt;
        r.listed(upstream, "http://127.0.0.1:1/i.png");
        co_return;
    });
    auto path = "/icons/b/" + protocol::icon_digest("http://127.0.0.1:1/i.png");
    EXPECT_EQ(r.get(path).status, status::ok);
    EXPECT_EQ(learnt, 1);
    // Known now: no learning; a made-up digest of the same namespace is not learnt again
    // within the interval.
    EXPECT_EQ(r.get(path).status, status::ok);
    EXPECT_EQ(r.get("/icons/b/" + std::string(32, 'a')).status, status::not_found);
    EXPECT_EQ(learnt, 1);
    // Another namespace has its own interval.
    EXPECT_EQ(r.get("/icons/a/" + std::string(32, 'a')).status, status::not_found);
    EXPECT_EQ(learnt, 2);
}

} // namespace
} // namespace gate::gateway
