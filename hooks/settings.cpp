#include "hooks/settings.hpp"

#include <boost/json/parse.hpp>

namespace gate::hooks {

namespace json = boost::json;

namespace {

struct bad {
    std::string what;
};

std::int64_t integer(const json::value& v, const std::string& where, std::int64_t lo,
                     std::int64_t hi) {
    if (!v.is_int64() && !v.is_uint64())
        throw bad{where + ": must be an integer"};
    auto n = v.is_int64() ? v.get_int64() : static_cast<std::int64_t>(v.get_uint64());
    if (n < lo || n > hi)
        throw bad{where + ": must be between " + std::to_string(lo) + " and " + std::to_string(hi)};
    return n;
}

std::string text(const json::value& v, const std::string& where) {
    if (!v.is_string() || v.get_string().empty())
        throw bad{where + ": must be a non-empty string"};
    return std::string(v.get_string());
}

const json::object& object(const json::value& v, const std::string& where) {
    if (!v.is_object())
        throw bad{where + ": must be an object"};
    return v.get_object();
}

void delivery(const json::object& o, delivery_settings& d) {
    using ms = std::chrono::milliseconds;
    for (const auto& [k, v] : o) {
        std::string where = "/delivery/" + std::string(k);
        if (k == "timeoutMs")
            d.timeout = ms(integer(v, where, 100, 120000));
        else if (k == "maxAttempts")
            d.retry.max_attempts = static_cast<int>(integer(v, where, 1, 100));
        else if (k == "initialDelayMs")
            d.retry.base = ms(integer(v, where, 1, 86400000));
        else if (k == "maxDelayMs")
            d.retry.cap = ms(integer(v, where, 1, 7 * 86400000LL));
        else if (k == "concurrency")
            d.concurrency = static_cast<std::size_t>(integer(v, where, 1, 4096));
        else if (k == "connectionsPerReceiver")
            d.connections_per_receiver = static_cast<std::size_t>(integer(v, where, 1, 1024));
        else if (k == "pollMs")
            d.poll = ms(integer(v, where, 10, 60000));
        else if (k == "leaseMs")
            d.lease = ms(integer(v, where, 1000, 3600000));
        else if (k == "allowPrivateTargets") {
            if (!v.is_bool())
                throw bad{where + ": must be true or false"};
            d.allow_private_targets = v.get_bool();
        } else if (k == "caFile")
            d.ca_file = text(v, where);
        else
            throw bad{where + ": unknown member"};
    }
    if (d.retry.cap < d.retry.base)
        throw bad{"/delivery/maxDelayMs: must not be below initialDelayMs"};
    if (d.lease <= d.timeout)
        throw bad{"/delivery/leaseMs: must be longer than timeoutMs (an attempt must end "
                  "before its claim lapses)"};
}

void retention(const json::object& o, retention_settings& r) {
    for (const auto& [k, v] : o) {
        std::string where = "/retention/" + std::string(k);
        if (k == "days")
            r.days = static_cast<int>(integer(v, where, 1, 3650));
        else if (k == "sweepIntervalMs")
            r.sweep_interval = std::chrono::milliseconds(integer(v, where, 1000, 86400000));
        else
            throw bad{where + ": unknown member"};
    }
}

} // namespace

std::variant<settings, std::string> parse_settings(std::string_view doc) {
    boost::system::error_code ec;
    auto root = json::parse(doc, ec);
    if (ec)
        return "the configuration is not JSON: " + ec.message();
    settings s;
    try {
        for (const auto& [k, v] : object(root, "")) {
            std::string where = "/" + std::string(k);
            if (k == "host")
                s.host = text(v, where);
            else if (k == "port")
                s.port = static_cast<std::uint16_t>(integer(v, where, 0, 65535));
            else if (k == "database")
                s.database = text(v, where);
            else if (k == "maxBodyBytes")
                s.max_body_bytes = static_cast<std::size_t>(integer(v, where, 1024, 16 << 20));
            else if (k == "delivery")
                delivery(object(v, where), s.delivery);
            else if (k == "retention")
                retention(object(v, where), s.retention);
            else if (k == "tokens") {
                if (!v.is_array())
                    throw bad{where + ": must be an array"};
                std::size_t i = 0;
                for (const auto& t : v.get_array()) {
                    std::string at = where + "/" + std::to_string(i++);
                    const auto& o = object(t, at);
                    api_token token;
                    for (const auto& [tk, tv] : o) {
                        if (tk == "organization")
                            token.organization = text(tv, at + "/organization");
                        else if (tk == "token")
                            token.token = text(tv, at + "/token");
                        else
                            throw bad{at + "/" + std::string(tk) + ": unknown member"};
                    }
                    if (token.organization.empty())
                        throw bad{at + "/organization: is required"};
                    if (token.token.size() < 16)
                        throw bad{at + "/token: must be at least 16 characters"};
                    for (const auto& other : s.tokens)
                        if (other.token == token.token)
                            throw bad{at + "/token: is already given to " + other.organization};
                    s.tokens.push_back(std::move(token));
                }
            } else
                throw bad{where + ": unknown member"};
        }
    } catch (const bad& b) {
        return b.what;
    }
    if (s.tokens.empty())
        return "/tokens: at least one organization token is required";
    return s;
}

} // namespace gate::hooks
