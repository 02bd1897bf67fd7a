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
            if (!value.is_string())
                return field_error{"url", "must be a string"};
            spec.url = std::string(value.get_string());
            if (auto bad = check_target_url(spec.url))
                return field_error{"url", *bad};
        } else if (key == "secret") {
            if (value.is_null())
                continue;
            if (!value.is_string())
                return field_error{"secret", "must be a string"};
            std::string s(value.get_string());
            if (s.size() < min_secret_length || s.size() > max_secret_length)
                return field_error{"secret", "must be " + std::to_string(min_secret_length) +
                                                 " to " + std::to_string(max_secret_length) +
                                                 " characters"};
            spec.secret = std::move(s);
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

std::variant<bool, field_error> parse_enabled(const json::value& body) {
    auto* obj = body.if_object();
    if (!obj)
        return field_error{"", "the body must be a JSON object"};
    for (const auto& [key, value] : *obj)
        if (key != "enabled")
            return field_error{std::string(key), "is not a field of this request (enabled)"};
    auto* e = obj->if_contains("enabled");
    if (!e)
        return field_error{"enabled", "is required"};
    if (!e->is_bool())
        return field_error{"enabled", "must be true or false"};
    return e->get_bool();
}

} // namespace gate::hooks
