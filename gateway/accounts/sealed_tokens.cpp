#include "gateway/accounts/sealed_tokens.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::gateway::accounts {

namespace json = boost::json;

namespace {

std::int64_t seconds_of(wall_clock::time_point t) {
    if (t == wall_clock::time_point::max())
        return -1;
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

wall_clock::time_point time_of(std::int64_t s) {
    return s < 0 ? wall_clock::time_point::max() : wall_clock::time_point(std::chrono::seconds(s));
}

} // namespace

std::string seal_tokens(const account_tokens& t, const protocol::sealing_key& key,
                        std::string_view name) {
    auto plain = json::serialize(json::object{{"a", t.access_token},
                                              {"r", t.refresh_token},
                                              {"e", seconds_of(t.expires_at)},
                                              {"s", t.scope},
                                              {"c", seconds_of(t.connected_at)},
                                              {"ci", t.client.id},
                                              {"cs", t.client.secret},
                                              {"cm", t.client.method}});
    return protocol::seal(plain, key, name);
}

std::optional<account_tokens> open_tokens(std::string_view record,
                                          const std::vector<protocol::sealing_key>& keys,
                                          std::string_view name) {
    auto plain = protocol::open_sealed(record, keys, name);
    if (!plain)
        return std::nullopt;
    boost::system::error_code ec;
    auto doc = json::parse(*plain, ec);
    const auto* o = !ec && doc.is_object() ? &doc.get_object() : nullptr;
    auto str = [&](const char* k) -> std::optional<std::string> {
        const auto* v = o ? o->if_contains(k) : nullptr;
        return v && v->is_string() ? std::optional<std::string>(v->get_string()) : std::nullopt;
    };
    auto num = [&](const char* k) -> std::optional<std::int64_t> {
        const auto* v = o ? o->if_contains(k) : nullptr;
        return v && v->is_int64() ? std::optional<std::int64_t>(v->get_int64()) : std::nullopt;
    };
    auto a = str("a"), r = str("r"), s = str("s");
    auto e = num("e"), c = num("c");
    if (!a || !r || !s || !e || !c)
        return std::nullopt;
    account_tokens t{*a, *r, time_of(*e), *s, time_of(*c), {}};
    if (auto ci = str("ci"), cs = str("cs"), cm = str("cm"); ci && cs && cm)
        t.client = {*ci, *cs, *cm};
    return t;
}

} // namespace gate::gateway::accounts
