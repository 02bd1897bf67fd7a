#include "protocol/recording.hpp"

#include <algorithm>
#include <array>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace gate::protocol {

namespace json = boost::json;

bool redacted_member(std::string_view name) {
    std::string folded;
    folded.reserve(name.size());
    for (char c : name)
        if (c != '-' && c != '_')
            folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    static constexpr std::array<std::string_view, 8> secretive = {
        "token", "secret", "password", "passwd", "apikey", "authorization", "cookie", "credential"};
    for (auto word : secretive)
        if (folded.find(word) != std::string::npos)
            return true;
    return false;
}

json::value redact(json::value v) {
    if (auto* o = v.if_object()) {
        for (auto& [key, member] : *o)
            member = redacted_member(key) ? json::value(redacted) : redact(std::move(member));
    } else if (auto* a = v.if_array()) {
        for (auto& item : *a)
            item = redact(std::move(item));
    }
    return v;
}

namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm), and back.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    auto yoe = static_cast<unsigned>(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

json::object principal_json(const recorded_principal& p) {
    json::object o{{"sub", p.sub}, {"iss", p.iss}};
    if (!p.groups.empty()) {
        json::array groups;
        for (const auto& g : p.groups)
            groups.emplace_back(g);
        o["groups"] = std::move(groups);
    }
    if (!p.claims.empty())
        o["claims"] = p.claims;
    return o;
}

std::string line_of(const json::object& o) {
    auto text = json::serialize(o);
    text.push_back('\n');
    return text;
}

const json::string* string_at(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v ? v->if_string() : nullptr;
}

std::optional<std::chrono::system_clock::time_point> time_at(const json::object& o) {
    auto* s = string_at(o, "at");
    return s ? parse_micro_timestamp(*s) : std::nullopt;
}

std::optional<std::uint64_t> count_at(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    if (v && v->is_uint64())
        return v->get_uint64();
    if (v && v->is_int64() && v->get_int64() >= 0)
        return static_cast<std::uint64_t>(v->get_int64());
    return std::nullopt;
}

std::variant<recorded_line, std::string> request_of(const json::object& o) {
    recorded_request r;
    auto seq = count_at(o, "seq");
    auto at = time_at(o);
    auto* message = o.if_contains("message");
    if (!seq || *seq == 0)
        return std::string("a request line needs a positive \"seq\"");
    if (!at)
        return std::string("a request line needs \"at\", an RFC 3339 UTC timestamp");
    if (!message || !message->is_object())
        return std::string("a request line needs \"message\", a JSON-RPC message object");
    r.seq = *seq;
    r.at = *at;
    r.message = *message;
    if (auto* s = string_at(o, "session"))
        r.session = std::string(*s);
    if (auto* s = string_at(o, "version"))
        r.version = std::string(*s);
    if (auto* s = string_at(o, "outcome"))
        r.outcome = std::string(*s);
    if (auto* s = string_at(o, "upstream"))
        r.upstream = std::string(*s);
    if (auto* pv = o.if_contains("principal")) {
        auto* p = pv->if_object();
        auto* sub = p ? string_at(*p, "sub") : nullptr;
        auto* iss = p ? string_at(*p, "iss") : nullptr;
        if (!sub || !iss)
            return std::string("\"principal\" needs \"sub\" and \"iss\" strings");
        recorded_principal who{std::string(*sub), std::string(*iss), {}, {}};
        if (auto* g = p->if_contains("groups")) {
            if (!g->is_array())
                return std::string("\"principal.groups\" must be an array of strings");
            for (const auto& group : g->get_array()) {
                if (!group.is_string())
                    return std::string("\"principal.groups\" must be an array of strings");
                who.groups.emplace_back(group.get_string());
            }
        }
        if (auto* c = p->if_contains("claims")) {
            if (!c->is_object())
                return std::string("\"principal.claims\" must be an object");
            who.claims = c->get_object();
        }
        r.principal = std::move(who);
    }
    return recorded_line{std::move(r)};
}

std::variant<recorded_line, std::string> answer_of(const json::object& o) {
    recorded_answer a;
    auto request = count_at(o, "request");
    auto at = time_at(o);
    auto* upstream = string_at(o, "upstream");
    auto* method = string_at(o, "method");
    if (!request)
        return std::string("an answer line needs \"request\", a request's seq or 0");
    if (!at)
        return std::string("an answer line needs \"at\", an RFC 3339 UTC timestamp");
    if (!upstream || !method)
        return std::string("an answer line needs \"upstream\" and \"method\" strings");
    a.request = *request;
    a.at = *at;
    a.upstream = std::string(*upstream);
    a.method = std::string(*method);
    if (auto* p = o.if_contains("params")) {
        if (!p->is_object())
            return std::string("\"params\" must be an object");
        a.params = p->get_object();
    }
    auto* reply = o.if_contains("reply");
    auto* failure = o.if_contains("failure");
    if ((reply != nullptr) == (failure != nullptr))
        return std::string("an answer line has either \"reply\" or \"failure\"");
    if (reply) {
        auto* r = reply->if_object();
        if (!r || (r->contains("result") == r->contains("error")))
            return std::string("\"reply\" holds either \"result\" or \"error\"");
        a.reply = *r;
    } else {
        auto* f = failure->if_object();
        auto* kind = f ? string_at(*f, "kind") : nullptr;
        if (!kind)
            return std::string("\"failure\" needs a \"kind\" string");
        recorded_answer::failure why{std::string(*kind), 0, {}};
        if (auto* s = f->if_contains("status"); s && s->is_int64())
            why.status = static_cast<int>(std::clamp<std::int64_t>(s->get_int64(), 0, 999));
        if (auto* m = string_at(*f, "message"))
            why.message = std::string(*m);
        a.failed = std::move(why);
    }
    return recorded_line{std::move(a)};
}

} // namespace

std::string micro_timestamp(std::chrono::system_clock::time_point t) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
    auto secs = us >= 0 ? us / 1000000 : (us - 999999) / 1000000;
    auto frac = us - secs * 1000000;
    std::time_t s = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&s, &tm);
    char buf[48];
    auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", static_cast<long long>(frac));
    return buf;
}

std::optional<std::chrono::system_clock::time_point> parse_micro_timestamp(std::string_view s) {
    // Exactly YYYY-MM-DDTHH:MM:SS.ffffffZ, as micro_timestamp writes it.
    static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd.ddddddZ";
    if (s.size() != shape.size())
        return std::nullopt;
    for (std::size_t i = 0; i < s.size(); ++i) {
        bool digit = std::isdigit(static_cast<unsigned char>(s[i])) != 0;
        if (shape[i] == 'd' ? !digit : s[i] != shape[i])
            return std::nullopt;
    }
    auto num = [&](std::size_t at, std::size_t len) {
        std::int64_t v = 0;
        for (std::size_t i = at; i < at + len; ++i)
            v = v * 10 + (s[i] - '0');
        return v;
    };
    auto month = num(5, 2), day = num(8, 2), hour = num(11, 2), minute = num(14, 2),
         second = num(17, 2);
    // From 1970: what gate writes, and what every printer prints with four digits.
    if (num(0, 4) < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
        minute > 59 || second > 60)
        return std::nullopt;
    auto days =
        days_from_civil(num(0, 4), static_cast<unsigned>(month), static_cast<unsigned>(day));
    auto us = (((days * 24 + hour) * 60 + minute) * 60 + second) * 1000000 + num(20, 6);
    // The clock's own range (nanoseconds: until 2262) bounds what a timestamp may say.
    static const auto latest = std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::duration::max())
                                   .count();
    if (us > latest)
        return std::nullopt;
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::microseconds(us)));
}

std::string to_json_line(const recorded_request& r) {
    json::object o{{"kind", "request"}, {"seq", r.seq}, {"at", micro_timestamp(r.at)}};
    if (r.session)
        o["session"] = *r.session;
    if (r.version)
        o["version"] = *r.version;
    if (r.principal)
        o["principal"] = principal_json(*r.principal);
    o["message"] = r.message;
    o["outcome"] = r.outcome;
    if (r.upstream)
        o["upstream"] = *r.upstream;
    return line_of(o);
}

std::string to_json_line(const recorded_answer& a) {
    json::object o{{"kind", "answer"},
                   {"request", a.request},
                   {"at", micro_timestamp(a.at)},
                   {"upstream", a.upstream},
                   {"method", a.method}};
    if (!a.params.empty())
        o["params"] = a.params;
    if (a.failed)
        o["failure"] = json::object{
            {"kind", a.failed->kind}, {"status", a.failed->status}, {"message", a.failed->message}};
    else
        o["reply"] = a.reply;
    return line_of(o);
}

std::variant<recorded_line, std::string> parse_line(std::string_view line) {
    boost::system::error_code ec;
    auto v = json::parse(line, ec);
    if (ec)
        return "not JSON: " + ec.message();
    auto* o = v.if_object();
    if (!o)
        return std::string("a line is one JSON object");
    auto* kind = string_at(*o, "kind");
    if (kind && *kind == "request")
        return request_of(*o);
    if (kind && *kind == "answer")
        return answer_of(*o);
    return std::string("\"kind\" must be \"request\" or \"answer\"");
}

} // namespace gate::protocol
