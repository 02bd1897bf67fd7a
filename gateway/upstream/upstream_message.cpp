#include "gateway/upstream/upstream_message.hpp"

#include <boost/json/parse.hpp>
#include <charconv>

namespace gate::gateway {

namespace json = boost::json;

upstream_message::upstream_message(json::object body, std::string raw) {
    s_->raw = std::move(raw);
    s_->body = std::move(body);
}

upstream_message upstream_message::of_text(std::string raw,
                                           std::optional<protocol::object_members> members) {
    upstream_message m;
    m.s_->raw = std::move(raw);
    m.s_->top = std::move(members);
    return m;
}

const json::object& upstream_message::body() const {
    if (!s_->body) {
        // The text was checked to be a JSON object; should its parse fail all the same (memory),
        // the message reads as an empty object: no result, no error.
        boost::system::error_code ec;
        auto v = json::parse(s_->raw, ec);
        s_->body.emplace(!ec && v.is_object() ? std::move(v.get_object()) : json::object{});
    }
    return *s_->body;
}

json::object& upstream_message::body() {
    static_cast<const upstream_message&>(*this).body();
    return *s_->body;
}

json::object upstream_message::take_body() {
    auto taken = std::move(body());
    s_->body.reset();
    return taken;
}

upstream_message::located upstream_message::locate(std::initializer_list<std::string_view> path,
                                                   std::string_view& text) const {
    if (s_->body || path.size() == 0)
        return located::unknown; // parsed already (and perhaps changed since): read the object
    if (!s_->top)
        s_->top.emplace(s_->raw);
    if (path.size() == 1) { // the common case, without the walk
        protocol::text_span span{};
        switch (s_->top->find(s_->raw, *path.begin(), span)) {
        case protocol::object_members::lookup::absent:
            return located::absent;
        case protocol::object_members::lookup::unknown:
            return located::unknown;
        case protocol::object_members::lookup::found:
            text = std::string_view(s_->raw).substr(span.begin, span.end - span.begin);
            return located::found;
        }
    }
    std::string_view level_text = s_->raw;
    const protocol::object_members* level = &*s_->top;
    std::optional<protocol::object_members> inner;
    std::size_t depth = 0;
    for (auto key : path) {
        if (depth > 0) {
            if (depth == 1 && s_->second && s_->second_key == *path.begin()) {
                level = &*s_->second;
            } else {
                inner.emplace(level_text);
                level = &*inner;
                if (depth == 1) { // the result's members are read for several things
                    s_->second = std::move(inner);
                    s_->second_key = std::string(*path.begin());
                    level = &*s_->second;
                }
            }
        }
        protocol::text_span span{};
        switch (level->find(level_text, key, span)) {
        case protocol::object_members::lookup::absent:
            return located::absent;
        case protocol::object_members::lookup::unknown:
            return located::unknown;
        case protocol::object_members::lookup::found:
            level_text = level_text.substr(span.begin, span.end - span.begin);
            break;
        }
        ++depth;
    }
    text = level_text;
    return located::found;
}

std::optional<std::string_view>
upstream_message::text_at(std::initializer_list<std::string_view> path) const {
    std::string_view text;
    if (locate(path, text) == located::found)
        return text;
    return std::nullopt;
}

std::optional<std::string> upstream_message::text_with_id(std::string_view id_text) const {
    std::string_view old;
    if (locate({"id"}, old) != located::found) // parsed already, or read the slow way
        return protocol::replace_top_level_member(s_->raw, "id", id_text);
    auto begin = static_cast<std::size_t>(old.data() - s_->raw.data());
    std::string out;
    out.reserve(s_->raw.size() - old.size() + id_text.size());
    out.append(s_->raw, 0, begin).append(id_text).append(s_->raw, begin + old.size());
    return out;
}

std::optional<json::value>
upstream_message::value_at(std::initializer_list<std::string_view> path) const {
    std::string_view text;
    switch (locate(path, text)) {
    case located::absent:
        return std::nullopt;
    case located::found: {
        boost::system::error_code ec;
        auto v = json::parse(text, ec);
        if (!ec)
            return v;
        break; // cannot happen for checked text; the parsed object answers instead
    }
    case located::unknown:
        break;
    }
    const json::object* level = &body();
    const json::value* v = nullptr;
    for (auto key : path) {
        if (!level)
            return std::nullopt;
        v = level->if_contains(key);
        if (!v)
            return std::nullopt;
        level = v->if_object();
    }
    if (!v)
        return std::nullopt;
    return *v;
}

bool upstream_message::has(std::string_view key) const {
    std::string_view text;
    switch (locate({key}, text)) {
    case located::found:
        return true;
    case located::absent:
        return false;
    case located::unknown:
        break;
    }
    return body().contains(key);
}

namespace {

// `id` as the text says it, read without a parser when it is written as plain digits.
bool has_id(const upstream_message& m, std::int64_t id) {
    if (auto text = m.text_at({"id"});
        text && !text->empty() && text->front() >= '0' && text->front() <= '9') {
        std::int64_t got = 0;
        auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), got);
        if (ec == std::errc() && end == text->data() + text->size())
            return got == id;
    }
    auto got = m.value_at({"id"});
    return got && got->is_int64() && got->get_int64() == id;
}

} // namespace

bool is_response_to(const upstream_message& m, std::int64_t id) {
    if (auto version = m.text_at({"jsonrpc"}); !version || *version != R"("2.0")") {
        auto v = m.value_at({"jsonrpc"}); // spelled otherwise ("\u0032.0"), or parsed already
        if (!v || *v != "2.0")
            return false;
    }
    if (!has_id(m, id))
        return false;
    bool error = m.has("error");
    if (m.has("result"))
        return !error;
    auto code = error ? m.value_at({"error", "code"}) : std::nullopt;
    return code && code->is_int64();
}

} // namespace gate::gateway
