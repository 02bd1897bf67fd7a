#include "config/json_view.hpp"

#include <cmath>
#include <limits>

namespace gate::config::detail {

std::string escape_token(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::string child_pointer(std::string_view parent, std::string_view key) {
    std::string out(parent);
    out += '/';
    out += escape_token(key);
    return out;
}

std::string child_pointer(std::string_view parent, std::size_t index) {
    std::string out(parent);
    out += '/';
    out += std::to_string(index);
    return out;
}

void sink::add(std::string pointer, std::string reason) {
    failed_.insert(pointer);
    errors_.push_back({std::move(pointer), std::move(reason)});
}

bool sink::failed(std::string_view pointer) const {
    return failed_.find(pointer) != failed_.end();
}

std::string_view kind_name(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null:
        return "null";
    case json::kind::bool_:
        return "true/false";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
        return "a number";
    case json::kind::string:
        return "a string";
    case json::kind::array:
        return "an array";
    case json::kind::object:
        return "an object";
    }
    return "a value";
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    out += s;
    out += '"';
    return out;
}

std::string quoted_list(std::initializer_list<std::string_view> items) {
    return quoted_list(std::vector<std::string_view>(items));
}

std::string quoted_list(const std::vector<std::string_view>& items) {
    std::string out;
    for (auto item : items) {
        if (!out.empty()) {
            out += ", ";
        }
        out += quoted(item);
    }
    return out;
}

namespace {

std::string expected(std::string_view want, const json::value& got) {
    return "expected " + std::string(want) + ", got " + std::string(kind_name(got));
}

// JSON has one number type; a whole-valued double (1e3, 5.0) is accepted as an integer, as JSON
// Schema's "integer" does, while fractions and out-of-range values are refused.
std::optional<std::int64_t> as_integer(const json::value& v, std::string& why) {
    if (v.is_int64()) {
        return v.get_int64();
    }
    if (v.is_uint64()) {
        why = "is too large; the maximum is " +
              std::to_string(std::numeric_limits<std::int64_t>::max());
        return std::nullopt;
    }
    if (v.is_double()) {
        double d = v.get_double();
        if (std::trunc(d) != d) {
            why = "must be a whole number, without a fractional part";
            return std::nullopt;
        }
        if (d < -9.2e18 || d > 9.2e18) {
            why = "is out of range for an integer";
            return std::nullopt;
        }
        return static_cast<std::int64_t>(d);
    }
    why = expected("an integer", v);
    return std::nullopt;
}

std::string bound_text(bound b) {
    switch (b) {
    case bound::positive:
        return "must be a positive integer (1 or more)";
    case bound::non_negative:
        return "must be zero or a positive integer";
    case bound::non_zero:
        return "must not be 0";
    case bound::any:
        break;
    }
    return "";
}

bool within(bound b, std::int64_t n) {
    switch (b) {
    case bound::positive:
        return n > 0;
    case bound::non_negative:
        return n >= 0;
    case bound::non_zero:
        return n != 0;
    case bound::any:
        break;
    }
    return true;
}

} // namespace

object_view::object_view(const json::value& value, std::string pointer, sink& errors,
                         std::initializer_list<std::string_view> allowed)
    : pointer_(std::move(pointer)), errors_(&errors) {
    object_ = value.if_object();
    if (object_ == nullptr) {
        errors_->add(pointer_, expected("an object", value));
        return;
    }
    for (const auto& member : *object_) {
        bool known = false;
        for (auto name : allowed) {
            known = known || name == std::string_view(member.key());
        }
        if (!known) {
            std::string reason = "unknown field " + quoted(member.key());
            reason += allowed.size() == 0 ? "; no fields are allowed here"
                                          : "; allowed fields here are " + quoted_list(allowed);
            errors_->add(pointer_of(member.key()), std::move(reason));
        }
    }
}

const json::value* object_view::find(std::string_view key) const {
    if (object_ == nullptr) {
        return nullptr;
    }
    return object_->if_contains(key);
}

void object_view::fail(std::string_view key, std::string reason) const {
    errors_->add(pointer_of(key), std::move(reason));
}

void object_view::fail_here(std::string reason) const {
    errors_->add(pointer_, std::move(reason));
}

bool object_view::require(std::string_view key, std::string_view what) const {
    if (object_ == nullptr || has(key)) {
        return true;
    }
    fail(key, "required: " + std::string(what));
    return false;
}

std::optional<std::string> object_view::string(std::string_view key, bool allow_empty) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_string()) {
        fail(key, expected("a string", *v));
        return std::nullopt;
    }
    std::string s(v->get_string());
    if (s.empty() && !allow_empty) {
        fail(key, "must not be an empty string");
        return std::nullopt;
    }
    return s;
}

std::optional<std::int64_t> object_view::integer(std::string_view key, bound b) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    std::string why;
    auto n = as_integer(*v, why);
    if (!n) {
        fail(key, why);
        return std::nullopt;
    }
    if (!within(b, *n)) {
        fail(key, bound_text(b) + " (got " + std::to_string(*n) + ")");
        return std::nullopt;
    }
    return n;
}

std::optional<double> object_view::number(std::string_view key) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->is_double()) {
        return v->get_double();
    }
    if (v->is_int64()) {
        return static_cast<double>(v->get_int64());
    }
    if (v->is_uint64()) {
        return static_cast<double>(v->get_uint64());
    }
    fail(key, expected("a number", *v));
    return std::nullopt;
}

std::optional<bool> object_view::boolean(std::string_view key) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_bool()) {
        fail(key, expected("true or false", *v));
        return std::nullopt;
    }
    return v->get_bool();
}

std::optional<std::vector<std::string>> object_view::strings(std::string_view key) const {
    const auto* arr = array(key);
    if (arr == nullptr) {
        return std::nullopt;
    }
    std::vector<std::string> out;
    bool all_ok = true;
    std::string base = pointer_of(key);
    for (std::size_t i = 0; i < arr->size(); ++i) {
        const auto& item = (*arr)[i];
        if (!item.is_string()) {
            errors_->add(child_pointer(base, i), expected("a string", item));
            all_ok = false;
        } else if (item.get_string().empty()) {
            errors_->add(child_pointer(base, i), "must not be an empty string");
            all_ok = false;
        } else {
            out.emplace_back(item.get_string());
        }
    }
    if (!all_ok) {
        return std::nullopt;
    }
    return out;
}

std::optional<string_map> object_view::strings_map(std::string_view key) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    const auto* obj = v->if_object();
    if (obj == nullptr) {
        fail(key, expected("an object mapping names to strings", *v));
        return std::nullopt;
    }
    string_map out;
    bool all_ok = true;
    std::string base = pointer_of(key);
    for (const auto& member : *obj) {
        if (!member.value().is_string()) {
            errors_->add(child_pointer(base, member.key()), expected("a string", member.value()));
            all_ok = false;
        } else {
            out.emplace(std::string(member.key()), std::string(member.value().get_string()));
        }
    }
    if (!all_ok) {
        return std::nullopt;
    }
    return out;
}

std::optional<std::string>
object_view::one_of(std::string_view key, std::initializer_list<std::string_view> allowed) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->is_string()) {
        fail(key, expected("a string", *v) + "; use one of " + quoted_list(allowed));
        return std::nullopt;
    }
    std::string_view s = v->get_string();
    for (auto a : allowed) {
        if (a == s) {
            return std::string(s);
        }
    }
    fail(key, quoted(s) + " is not allowed; use one of " + quoted_list(allowed));
    return std::nullopt;
}

const json::array* object_view::array(std::string_view key) const {
    const auto* v = find(key);
    if (v == nullptr) {
        return nullptr;
    }
    const auto* arr = v->if_array();
    if (arr == nullptr) {
        fail(key, expected("an array", *v));
    }
    return arr;
}

} // namespace gate::config::detail
