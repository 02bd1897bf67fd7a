#include "hooks/api.hpp"

#include "hooks/console_page.hpp"
#include "hooks/event_types.hpp"
#include "hooks/routes.hpp"
#include "hooks/store_actor.hpp"
#include "hooks/target_guard.hpp"
#include "hooks/webhook_request.hpp"
#include "protocol/secret_compare.hpp"
#include "protocol/utc_timestamp.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <charconv>

namespace gate::hooks {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
using transport::http_reply;
using sys_clock = std::chrono::system_clock;

namespace {

http_reply reply(http::status status, const json::value& body) {
    return http_reply::json(status, json::serialize(body));
}

http_reply error(http::status status, std::string code, std::string message,
                 std::optional<std::string> field = std::nullopt) {
    json::object e{{"code", std::move(code)}, {"message", std::move(message)}};
    if (field)
        e["field"] = *field;
    return reply(status, json::object{{"error", std::move(e)}});
}

http_reply invalid(const field_error& f) {
    return error(http::status::bad_request, "invalid_field",
                 f.field.empty() ? f.message : f.field + " " + f.message,
                 f.field.empty() ? std::nullopt : std::optional(f.field));
}

// An address literal is judged when a url is given; a name when it is resolved, at delivery.
std::optional<field_error> private_literal(const std::string& url, bool allowed) {
    if (allowed)
        return std::nullopt;
    auto u = boost::urls::parse_absolute_uri(url);
    if (!u)
        return std::nullopt;
    auto host = target_host(*u);
    auto address = non_public_literal(host);
    if (!address)
        return std::nullopt;
    std::string named = host == *address ? host : host + ", that is " + *address;
    return field_error{"url", "targets a non-public address (" + named +
                                  "); the operator has not allowed private targets"};
}

http_reply storage_failed() {
    return error(http::status::service_unavailable, "storage_unavailable",
                 "the store could not complete the request; try again");
}

json::object to_json(const webhook& w) {
    json::object o{{"id", w.id},
                   {"event", w.event},
                   {"url", w.url},
                   {"enabled", w.enabled},
                   {"has_secret", w.secret.has_value()},
                   {"created_at", protocol::utc_timestamp(w.created_at)},
                   {"updated_at", protocol::utc_timestamp(w.updated_at)}};
    if (w.disabled_reason)
        o["disabled_reason"] = *w.disabled_reason;
    return o;
}

json::object to_json(const delivery& d) {
    json::object o{{"id", d.id},
                   {"webhook_id", d.webhook_id},
                   {"event_id", d.event_id},
                   {"event_type", d.event_type},
                   {"status", to_string(d.status)},
                   {"attempts", d.attempts},
                   {"created_at", protocol::utc_timestamp(d.created_at)},
                   {"updated_at", protocol::utc_timestamp(d.updated_at)}};
    o["response_code"] = d.last_status ? json::value(*d.last_status) : json::value(nullptr);
    o["response_body"] = d.response_body ? json::value(*d.response_body) : json::value(nullptr);
    o["error"] = d.last_error ? json::value(*d.last_error) : json::value(nullptr);
    if (d.status == delivery_status::pending)
        o["next_attempt_at"] = protocol::utc_timestamp(d.next_attempt_at);
    if (d.dead_at)
        o["dead_at"] = protocol::utc_timestamp(*d.dead_at);
    o["last_attempt_at"] = d.last_attempt_at
                               ? json::value(protocol::utc_timestamp(*d.last_attempt_at))
                               : json::value(nullptr);
    o["last_duration_ms"] =
        d.last_duration_ms ? json::value(*d.last_duration_ms) : json::value(nullptr);
    return o;
}

json::object to_json(const delivery_attempt& a) {
    json::object o{{"delivery_id", a.delivery_id},
                   {"webhook_id", a.webhook_id},
                   {"attempt", a.number},
                   {"ended_at", protocol::utc_timestamp(a.ended_at)}};
    o["duration_ms"] = a.duration_ms ? json::value(*a.duration_ms) : json::value(nullptr);
    o["response_code"] = a.status ? json::value(*a.status) : json::value(nullptr);
    o["failure"] = a.failure ? json::value(*a.failure) : json::value(nullptr);
    return o;
}

http_reply attempts_reply(const std::vector<delivery_attempt>& attempts) {
    json::array out;
    for (const auto& a : attempts)
        out.push_back(to_json(a));
    return reply(http::status::ok, json::object{{"attempts", std::move(out)}});
}

std::optional<json::value> body_json(const transport::http_request& req, http_reply& refusal) {
    boost::system::error_code ec;
    auto v = json::parse(req.body(), ec);
    if (ec) {
        refusal = error(http::status::bad_request, "invalid_json",
                        "the body is not JSON: " + ec.message());
        return std::nullopt;
    }
    return v;
}

// An id of no webhook of the caller's organization (or of another's: the same answer).
http_reply no_webhook(const std::string& id) {
    return error(http::status::not_found, "not_found", "no webhook " + id);
}

http_reply method_not_allowed(std::string allow) {
    auto r =
        error(http::status::method_not_allowed, "method_not_allowed", "this path takes " + allow);
    r.headers.emplace_back("Allow", std::move(allow));
    return r;
}

} // namespace

api::api(const settings& s, caf::actor store, dispatcher& worker, hooks_metrics& metrics)
    : settings_(s), store_(std::move(store)), worker_(worker), metrics_(metrics) {}

std::optional<http_reply> api::admit(const transport::http_request&, time_point) {
    return std::nullopt;
}

std::optional<std::string> api::organization(const transport::http_request& req) const {
    auto auth = transport::header_value(req, "Authorization");
    constexpr std::string_view scheme = "Bearer ";
    if (auth.size() <= scheme.size() ||
        !std::equal(scheme.begin(), scheme.end(), auth.begin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
        return std::nullopt;
    std::string_view presented = std::string_view(auth).substr(scheme.size());
    // Every token is compared, in constant time each: which one matched does not show.
    std::optional<std::string> org;
    for (const auto& t : settings_.tokens)
        if (protocol::secrets_equal(presented, t.token))
            org = t.organization;
    return org;
}

asio::awaitable<std::optional<http_reply>> api::respond(transport::http_request& req,
                                                        boost::beast::tcp_stream&,
                                                        const boost::asio::ip::address&,
                                                        time_point) {
    auto path = transport::path_of(req.target());
    auto matched = match_route(std::string(req.method_string()), path);
    if (std::holds_alternative<no_route>(matched))
        co_return error(http::status::not_found, "not_found", "no such path");
    if (auto* wrong = std::get_if<wrong_method>(&matched))
        co_return method_not_allowed(wrong->allow);
    auto& m = std::get<route_match>(matched);
    switch (m.route->id) {
    case route_id::health: {
        auto depths = co_await on_store(store_, [](store& s) { return s.depths(); });
        if (!depths)
            co_return error(http::status::service_unavailable, "storage_unavailable",
                            "the store does not answer");
        co_return reply(http::status::ok, json::object{{"status", "ok"}});
    }
    case route_id::metrics: {
        if (auto depths = co_await on_store(store_, [](store& s) { return s.depths(); }))
            metrics_.depths(depths->first, depths->second);
        http_reply r = http_reply::text(http::status::ok, metrics_.serialize());
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        co_return r;
    }
    case route_id::console:
    case route_id::console_alias:
    case route_id::console_asset: {
        auto asset = console_asset_at(m.route->id == route_id::console_asset ? m.params[0] : "");
        if (!asset)
            co_return error(http::status::not_found, "not_found", "no such path");
        co_return http_reply{http::status::ok,
                             std::string(asset->content_type),
                             std::string(asset->body),
                             {{"Content-Security-Policy", std::string(console_csp)},
                              {"X-Content-Type-Options", "nosniff"}},
                             false};
    }
    default:
        break;
    }
    auto org = organization(req);
    if (!org) {
        auto r = error(http::status::unauthorized, "unauthorized",
                       transport::header_value(req, "Authorization").empty()
                           ? "Authorization: Bearer <token> is required"
                           : "the bearer token is not valid");
        r.headers.emplace_back("WWW-Authenticate", R"(Bearer realm="gate-hooks")");
        co_return r;
    }
    try {
        co_return co_await route(req, m, *org);
    } catch (const std::exception& e) {
        co_return error(http::status::internal_server_error, "internal", e.what());
    }
}

asio::awaitable<http_reply> api::route(transport::http_request& req, const route_match& m,
                                       const std::string& org) {
    auto now = sys_clock::now();
    const std::string id = m.params.empty() ? std::string() : m.params[0];
    switch (m.route->id) {
    case route_id::list_webhooks: {
        auto hooks = co_await on_store(store_, [org](store& s) { return s.list_webhooks(org); });
        if (!hooks)
            co_return storage_failed();
        json::array out;
        for (const auto& w : *hooks)
            out.push_back(to_json(w));
        co_return reply(http::status::ok, json::object{{"webhooks", std::move(out)}});
    }
    case route_id::create_webhook:
        co_return co_await create_webhook(req, org, now);
    case route_id::get_webhook: {
        auto owned = co_await owned_webhook(org, id);
        if (auto* refused = std::get_if<http_reply>(&owned))
            co_return std::move(*refused);
        co_return reply(http::status::ok, to_json(std::get<webhook>(owned)));
    }
    case route_id::update_webhook:
        co_return co_await update_webhook(req, org, id, now);
    case route_id::delete_webhook: {
        auto gone =
            co_await on_store(store_, [org, id](store& s) { return s.delete_webhook(org, id); });
        if (!gone)
            co_return storage_failed();
        if (!*gone)
            co_return no_webhook(id);
        co_return http_reply::empty(http::status::no_content);
    }
    case route_id::test_webhook:
        co_return co_await test_webhook(org, id);
    case route_id::webhook_deliveries:
        co_return co_await webhook_deliveries(org, id);
    case route_id::webhook_attempts:
        co_return co_await webhook_attempts(org, id);
    case route_id::delivery_attempts:
        co_return co_await delivery_attempts(org, id);
    case route_id::ingest_event:
        co_return co_await ingest(req, org, now);
    case route_id::dead_letter_stats:
        co_return co_await dead_letter_stats(org, now);
    case route_id::stats:
        co_return co_await stats(org, now);
    case route_id::dead_letters:
        co_return co_await list_dead_letters(std::string(req.target()), org);
    case route_id::retry_dead_letters: {
        auto n = co_await on_store(
            store_, [org, id, now](store& s) { return s.retry_dead_letters(org, id, now); });
        if (!n)
            co_return storage_failed();
        if (!*n)
            co_return no_webhook(id);
        if (**n > 0)
            worker_.wake();
        co_return reply(
            http::status::accepted,
            json::object{{"webhook_id", id}, {"retried", static_cast<std::int64_t>(**n)}});
    }
    default:
        co_return error(http::status::not_found, "not_found", "no such path");
    }
}

asio::awaitable<std::variant<webhook, http_reply>> api::owned_webhook(const std::string& org,
                                                                      const std::string& id) {
    auto w = co_await on_store(store_, [org, id](store& s) { return s.get_webhook(org, id); });
    if (!w)
        co_return storage_failed();
    if (!*w)
        co_return no_webhook(id);
    co_return std::move(**w);
}

asio::awaitable<http_reply> api::create_webhook(transport::http_request& req,
                                                const std::string& org, clock_time now) {
    http_reply refusal;
    auto body = body_json(req, refusal);
    if (!body)
        co_return refusal;
    auto spec = parse_webhook_spec(*body);
    if (auto* bad = std::get_if<field_error>(&spec))
        co_return invalid(*bad);
    if (auto bad = private_literal(std::get<webhook_spec>(spec).url,
                                   settings_.delivery.allow_private_targets))
        co_return invalid(*bad);
    auto created =
        co_await on_store(store_, [org, s = std::get<webhook_spec>(spec), now](store& st) {
            return st.create_webhook(org, s, now);
        });
    if (!created)
        co_return storage_failed();
    auto r = reply(http::status::created, to_json(*created));
    r.headers.emplace_back("Location", "/webhooks/" + created->id);
    co_return r;
}

asio::awaitable<http_reply> api::update_webhook(transport::http_request& req,
                                                const std::string& org, const std::string& id,
                                                clock_time now) {
    http_reply refusal;
    auto body = body_json(req, refusal);
    if (!body)
        co_return refusal;
    auto parsed = parse_webhook_patch(*body);
    if (auto* bad = std::get_if<field_error>(&parsed))
        co_return invalid(*bad);
    if (const auto& url = std::get<webhook_patch>(parsed).url)
        if (auto bad = private_literal(*url, settings_.delivery.allow_private_targets))
            co_return invalid(*bad);
    auto w = co_await on_store(store_,
                               [org, id, patch = std::get<webhook_patch>(std::move(parsed)),
                                now](store& s) { return s.update_webhook(org, id, patch, now); });
    if (!w)
        co_return storage_failed();
    if (!*w)
        co_return no_webhook(id);
    co_return reply(http::status::ok, to_json(**w));
}

asio::awaitable<http_reply> api::test_webhook(const std::string& org, const std::string& id) {
    auto owned = co_await owned_webhook(org, id);
    if (auto* refused = std::get_if<http_reply>(&owned))
        co_return std::move(*refused);
    auto r = co_await worker_.test(std::get<webhook>(owned));
    if (r.status)
        co_return reply(http::status::ok,
                        json::object{{"success", *r.status >= 200 && *r.status < 300},
                                     {"status", *r.status},
                                     {"status_text", r.status_text}});
    co_return reply(http::status::ok,
                    json::object{{"success", false}, {"error", r.error.value_or("")}});
}

asio::awaitable<http_reply> api::webhook_deliveries(const std::string& org, const std::string& id) {
    auto owned = co_await owned_webhook(org, id);
    if (auto* refused = std::get_if<http_reply>(&owned))
        co_return std::move(*refused);
    auto list =
        co_await on_store(store_, [org, id](store& s) { return s.deliveries(org, id, 100); });
    if (!list)
        co_return storage_failed();
    json::array out;
    for (const auto& d : *list)
        out.push_back(to_json(d));
    co_return reply(http::status::ok, json::object{{"deliveries", std::move(out)}});
}

asio::awaitable<http_reply> api::webhook_attempts(const std::string& org, const std::string& id) {
    auto owned = co_await owned_webhook(org, id);
    if (auto* refused = std::get_if<http_reply>(&owned))
        co_return std::move(*refused);
    auto list =
        co_await on_store(store_, [org, id](store& s) { return s.recent_attempts(org, id, 100); });
    if (!list)
        co_return storage_failed();
    co_return attempts_reply(*list);
}

asio::awaitable<http_reply> api::delivery_attempts(const std::string& org, const std::string& id) {
    auto list = co_await on_store(store_, [org, id](store& s) { return s.attempts_of(org, id); });
    if (!list)
        co_return storage_failed();
    if (!*list) // another organization's delivery answers like one nobody holds
        co_return error(http::status::not_found, "not_found", "no delivery " + id);
    co_return attempts_reply(**list);
}

asio::awaitable<http_reply> api::dead_letter_stats(const std::string& org, clock_time now) {
    auto st =
        co_await on_store(store_, [org, now](store& s) { return s.dead_letter_stats(org, now); });
    if (!st)
        co_return storage_failed();
    json::object by_type;
    for (const auto& t : st->types)
        by_type[t.event_type] = t.count;
    co_return reply(http::status::ok, json::object{{"total", st->total},
                                                   {"by_event_type", std::move(by_type)},
                                                   {"by_age",
                                                    {{"under_1h", st->under_hour},
                                                     {"1h_to_24h", st->under_day},
                                                     {"1d_to_7d", st->under_week},
                                                     {"over_7d", st->older}}}});
}

asio::awaitable<http_reply> api::stats(const std::string& org, clock_time now) {
    auto st = co_await on_store(
        store_, [org, since = now - stats_window](store& s) { return s.stats(org, since); });
    if (!st)
        co_return storage_failed();
    auto window_minutes = std::chrono::duration<double, std::ratio<60>>(stats_window).count();
    auto attempted = st->delivered + st->failed;
    json::object out{
        {"window_seconds", std::chrono::seconds(stats_window).count()},
        {"queue_depth", st->queue_depth},
        {"dead_letters", st->dead_letters},
        {"delivered_last_hour", st->delivered},
        {"failed_last_hour", st->failed},
        {"delivery_rate_per_minute", static_cast<double>(st->delivered) / window_minutes}};
    out["failure_rate"] =
        attempted == 0
            ? json::value(nullptr)
            : json::value(static_cast<double>(st->failed) / static_cast<double>(attempted));
    co_return reply(http::status::ok, out);
}

asio::awaitable<http_reply> api::ingest(transport::http_request& req, const std::string& org,
                                        clock_time now) {
    http_reply refusal;
    auto body = body_json(req, refusal);
    if (!body)
        co_return refusal;
    auto* obj = body->if_object();
    if (!obj)
        co_return invalid({"", "the body must be a JSON object"});
    std::string type;
    json::value data = json::object{};
    for (const auto& [k, v] : *obj) {
        if (k == "type") {
            if (!v.is_string() || !is_platform_event(v.get_string()))
                co_return invalid({"type", "must be one of deploy.success, deploy.failed, "
                                           "activation.error, rollback.success, usage.threshold"});
            type = std::string(v.get_string());
        } else if (k == "data") {
            if (!v.is_object())
                co_return invalid({"data", "must be a JSON object"});
            data = v;
        } else {
            co_return invalid({std::string(k), "is not a field of an event (type, data)"});
        }
    }
    if (type.empty())
        co_return invalid({"type", "is required"});
    auto in = co_await on_store(store_, [org, type, d = json::serialize(data), now](store& s) {
        return s.ingest(org, type, d, now);
    });
    if (!in)
        co_return storage_failed();
    metrics_.ingested(in->deliveries);
    if (in->deliveries > 0)
        worker_.wake();
    co_return reply(http::status::accepted,
                    json::object{{"id", in->event_id},
                                 {"deliveries", static_cast<std::int64_t>(in->deliveries)}});
}

asio::awaitable<http_reply> api::list_dead_letters(const std::string& target,
                                                   const std::string& org) {
    dlq_filter filter;
    std::optional<std::string> cursor;
    std::size_t limit = 50;
    if (auto url = boost::urls::parse_origin_form(target))
        for (auto p : url->params()) {
            std::string key(p.key), value(p.value);
            if (key == "event_type") {
                if (!is_platform_event(value))
                    co_return invalid({"event_type", "is not a known event type"});
                filter.event_type = value;
            } else if (key == "webhook_id") {
                filter.webhook_id = value;
            } else if (key == "cursor") {
                cursor = value;
            } else if (key == "limit") {
                std::size_t n = 0;
                auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
                if (ec != std::errc() || end != value.data() + value.size() || n < 1 || n > 200)
                    co_return invalid({"limit", "must be an integer from 1 to 200"});
                limit = n;
            } else {
                co_return invalid({key, "is not a parameter of this list (event_type, "
                                        "webhook_id, cursor, limit)"});
            }
        }
    auto page = co_await on_store(store_, [org, filter, cursor, limit](store& s) {
        return s.dead_letters(org, filter, cursor, limit);
    });
    if (!page)
        co_return storage_failed();
    json::array entries;
    for (const auto& d : page->entries)
        entries.push_back(to_json(d));
    json::object out{{"entries", std::move(entries)}};
    out["next_cursor"] = page->next_cursor ? json::value(*page->next_cursor) : json::value(nullptr);
    co_return reply(http::status::ok, out);
}

} // namespace gate::hooks
