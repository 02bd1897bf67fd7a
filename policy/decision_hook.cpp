#include "policy/decision_hook.hpp"

#include "policy/subjects_select.hpp"
#include "protocol/digest.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_text.hpp"

#include <algorithm>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

namespace gate::policy {

namespace json = boost::json;

std::string_view hook_stage_name(hook_stage s) {
    switch (s) {
    case hook_stage::call:
        return "call";
    case hook_stage::result:
        return "result";
    case hook_stage::server_request:
        return "serverRequest";
    }
    return "call";
}

namespace {

// {"issuer":..,"subject":..,"groups":[..],"scopes":[..]}, or null for an anonymous caller.
void append_principal(std::string& out, const principal* p) {
    if (!p) {
        out.append("null");
        return;
    }
    auto append_list = [&out](const std::vector<std::string>& items) {
        out.append(1, '[');
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i > 0)
                out.append(1, ',');
            protocol::append_json_string(out, items[i]);
        }
        out.append(1, ']');
    };
    out.append(R"({"issuer":)");
    protocol::append_json_string(out, p->issuer);
    out.append(R"(,"subject":)");
    protocol::append_json_string(out, p->subject);
    out.append(R"(,"groups":)");
    append_list(p->groups);
    out.append(R"(,"scopes":)");
    append_list(held_scopes(*p));
    out.append(1, '}');
}

void append_optional_text(std::string& out, std::optional<std::string_view> s) {
    if (s)
        protocol::append_json_string(out, *s);
    else
        out.append("null");
}

// Whether the code point at `s` (valid UTF-8, `len` bytes) is one a reason may not carry: C0
// and C1 controls and DEL (a line break would forge a log line), and the characters that
// reorder or break what a reader sees (U+200E/F, U+2028/9, U+202A-E, U+2066-9).
bool hidden(const unsigned char* s, std::size_t len) {
    if (len == 1)
        return s[0] < 0x20 || s[0] == 0x7f;
    if (len == 2)
        return s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F;
    if (len == 3 && s[0] == 0xE2 && s[1] == 0x80)
        return s[2] == 0x8E || s[2] == 0x8F || (s[2] >= 0xA8 && s[2] <= 0xAE);
    return len == 3 && s[0] == 0xE2 && s[1] == 0x81 && s[2] >= 0xA6 && s[2] <= 0xA9;
}

std::size_t sequence_length(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Hidden characters replaced by '?'; cut to max_reason bytes without splitting a UTF-8
// sequence (the JSON parser has checked the encoding).
std::string cleaned(std::string_view text) {
    if (text.size() > max_reason) {
        auto cut = max_reason;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;
        text = text.substr(0, cut);
    }
    std::string out;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    for (std::size_t i = 0; i < text.size();) {
        auto len = std::min(sequence_length(s[i]), text.size() - i);
        if (hidden(s + i, len))
            out += '?';
        else
            out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

} // namespace

// Written as text, member by member, as json::serialize wrote the object it replaced
// (tests/unit/decision_hook_test.cpp compares the two): building and serializing that object
// cost a question 12,000 instructions of gate's io thread (docs/benchmarks.md). Arguments and
// a result are copied from the text they were read from where they read the same, so the
// hook gets the caller's numbers as written, never a text it cannot parse (issue 47).
std::string describe(const hook_question& q) {
    std::string out;
    out.reserve(384);
    out.append(R"({"version":1,"stage":)");
    protocol::append_json_string(out, hook_stage_name(q.stage));
    out.append(R"(,"principal":)");
    append_principal(out, q.who);
    out.append(R"(,"tenant":)");
    append_optional_text(out, q.tenant);
    out.append(R"(,"method":)");
    protocol::append_json_string(out, q.method);
    out.append(R"(,"name":)");
    protocol::append_json_string(out, q.name);
    out.append(R"(,"upstream":)");
    protocol::append_json_string(out, q.upstream);
    out.append(R"(,"upstreamName":)");
    protocol::append_json_string(out, q.upstream_name);
    out.append(R"(,"rule":)");
    append_optional_text(out, q.rule);
    if (q.arguments) {
        out.append(R"(,"arguments":)");
        protocol::write_preserving(*q.arguments, q.arguments_source, out);
    }
    if (q.is_error)
        out.append(*q.is_error ? R"(,"isError":true)" : R"(,"isError":false)");
    if (q.result) {
        out.append(R"(,"result":)");
        protocol::write_preserving(*q.result, q.result_source, out);
    }
    out.append(1, '}');
    return out;
}

std::variant<hook_verdict, std::string> read_hook_answer(unsigned status, std::string_view body) {
    if (status < 200 || status > 299)
        return "it answered HTTP " + std::to_string(status);
    // An answer is a few dozen bytes: parsed into a buffer on the stack, not the heap.
    unsigned char room[1024];
    json::monotonic_resource memory(room, sizeof room);
    boost::system::error_code ec;
    auto v = json::parse(body, ec, &memory);
    if (ec || !v.is_object())
        return std::string("its answer is not a JSON object");
    const auto& o = v.get_object();
    const auto* d = o.if_contains("decision");
    if (!d || !d->is_string() || (d->get_string() != "allow" && d->get_string() != "deny"))
        return std::string("its answer's \"decision\" is not \"allow\" or \"deny\"");
    hook_verdict out{d->get_string() == "allow", {}};
    if (const auto* r = o.if_contains("reason")) {
        if (!r->is_string())
            return std::string("its answer's \"reason\" is not a string");
        out.reason = cleaned(r->get_string());
    }
    return out;
}

std::optional<hook_verdict> hook_memory::recall(const std::string& description, time_point now) {
    expire(now);
    auto it = held_.find(protocol::sha256_hex(description, 64));
    if (it == held_.end())
        return std::nullopt;
    return it->second.verdict;
}

void hook_memory::remember(const std::string& description, hook_verdict v, time_point now,
                           std::chrono::milliseconds ttl) {
    if (ttl <= std::chrono::milliseconds::zero() || capacity_ == 0)
        return;
    expire(now);
    auto key = protocol::sha256_hex(description, 64);
    auto until = now + ttl;
    if (auto it = held_.find(key); it != held_.end()) {
        it->second = {std::move(v), until};
    } else {
        while (held_.size() >= capacity_ && !order_.empty()) {
            auto oldest = held_.find(order_.front().first);
            if (oldest != held_.end() && oldest->second.until == order_.front().second)
                held_.erase(oldest);
            order_.pop_front();
        }
        held_.emplace(key, entry{std::move(v), until});
    }
    order_.emplace_back(std::move(key), until);
}

void hook_memory::clear() {
    held_.clear();
    order_.clear();
}

// An order entry whose time no longer matches its key's (the key was remembered again later)
// is passed over; the later entry removes it.
void hook_memory::expire(time_point now) {
    while (!order_.empty() && order_.front().second <= now) {
        auto it = held_.find(order_.front().first);
        if (it != held_.end() && it->second.until == order_.front().second)
            held_.erase(it);
        order_.pop_front();
    }
}

} // namespace gate::policy
