#include "hooks/webhook_request.hpp"

#include "hooks/event_types.hpp"

#include <boost/url/parse.hpp>

namespace gate::hooks {

namespace json = boost::json;

std::optional<std::string> check_target_url(std::string_view text) {
    if (text.size() > max_url_length)
        return "must be at most " + std::to_string(max_url_length) + " characters";
    auto u = boost::urls::parse_absolute_uri(text);
    if (!u)
        return std::string("must be an absolute URL");
    if (u->scheme() != "https")
        return "must use https (got " + std::string(u->scheme()) + ")";
    if (u->host().empty())
        return std::string("must name a host");
    if (u->has_userinfo())
        return std::string("must not carry credentials (user:password@)");
    if (u->has_fragment())
        return std::string("must not have a fragment");
    return std::nullopt;
}

namespace {

// A secret, or null for none.
std::variant<std::optional<std::string>, field_error> parse_secret(const json::value& value) {
    if (value.is_null())
        return std::optional<std::string>();
    if (!value.is_string())
        return field_error{"secret", "must be a string or null"};
    std::string s(value.get_string());
    if (s.size() < min_secret_length || s.size() > max_secret_length)
        return field_error{"secret", "must be " + std::to_string(min_secret_length) + " to " +
                                         std::to_string(max_secret_length) + " characters"};
    return std::optional(std::move(s));
}

std::variant<std::string, field_error> parse_url(const json::value& value) {
    if (!value.is_string())
        return field_error{"url", "must be a string"};
    std::string url(value.get_string());
    if (auto bad = check_target_url(url))
        return field_error{"url", *bad};
    return url;
}

} // namespace

std::variant<webhook_spec, field_error> parse_webhook_spec(const json::value& body) {
    auto* obj = body.if_object();
    if (!obj)
        return field_error{"", "the body must be a JSON object"};
    webhook_spec spec;
    for (const auto& [key, value] : *obj) {
        if (key == "event") {
            if (!value.is_string())
                return field_error{"event", "must be a string"};
            spec.event = std::string(value.get_string());
            if (!is_platform_event(spec.event)) {
                std::string known;
                for (auto e : platform_events)
                    known += (known.empty() ? "" : ", ") + std::string(e);
                return field_error{"event",
                                   "unknown event " + spec.event + " (known: " + known + ")"};
            }
        } else if (key == "url") {
            auto url = parse_url(value);
            if (auto* bad = std::get_if<field_error>(&url))
                return *bad;
            spec.url = std::get<std::string>(std::move(url));
        } else if (key == "secret") {
            auto secret = parse_secret(value);
            if (auto* bad = std::get_if<field_error>(&secret))
                return *bad;
            spec.secret = std::get<std::optional<std::string>>(std::move(secret));
        } else {
            return field_error{std::string(key), "is not a field of a webhook (event, url, "
                                                 "secret)"};
        }
    }
    if (spec.event.empty())
        return field_error{"event", "is required"};
    if (spec.url.empty())
        return field_error{"url", "is required"};
    return spec;
}

std::variant<webhook_patch, field_error> parse_webhook_patch(const json::value& body) {
    auto* obj = body.if_object();
    if (!obj)
        return field_error{"", "the body must be a JSON object"};
    webhook_patch patch;
    for (const auto& [key, value] : *obj) {
        if (key == "enabled") {
            if (!value.is_bool())
                return field_error{"enabled", "must be true or false"};
            patch.enabled = value.get_bool();
        } else if (key == "url") {
            auto url = parse_url(value);
            if (auto* bad = std::get_if<field_error>(&url))
                return *bad;
            patch.url = std::get<std::string>(std::move(url));
        } else if (key == "secret") {
            auto secret = parse_secret(value);
            if (auto* bad = std::get_if<field_error>(&secret))
                return *bad;
            patch.secret = std::get<std::optional<std::string>>(std::move(secret));
        } else {
            return field_error{std::string(key),
                               "is not a field that can be changed (enabled, url, secret)"};
        }
    }
    if (!patch.enabled && !patch.url && !patch.secret)
        return field_error{"", "nothing to change: give enabled, url or secret"};
    return patch;
}

} // namespace gate::hooks
