#include "policy/argument_match.hpp"

#include "policy/subjects_select.hpp"

#include <algorithm>
#include <charconv>
#include <re2/re2.h>
#include <variant>

namespace gate::policy {

namespace json = boost::json;

namespace {

std::vector<std::string> split_pointer(std::string_view p) {
    std::vector<std::string> tokens;
    if (p.empty())
        return tokens;
    p.remove_prefix(1); // the leading '/' (checked at load)
    for (;;) {
        auto slash = p.find('/');
        std::string token;
        for (std::size_t i = 0; i < std::min(slash, p.size()); ++i) {
            if (p[i] == '~' && i + 1 < p.size()) {
                token += p[i + 1] == '1' ? '/' : '~';
                ++i;
            } else {
                token += p[i];
            }
        }
        tokens.push_back(std::move(token));
        if (slash == std::string_view::npos)
            return tokens;
        p.remove_prefix(slash + 1);
    }
}

// ASCII only: a letter outside ASCII folds (or not) differently from one upstream to the next.
void fold_ascii_case(std::string& s) {
    for (auto& ch : s)
        if (ch >= 'A' && ch <= 'Z')
            ch = static_cast<char>(ch - 'A' + 'a');
}

void fold_condition_strings(config::argument_condition& c) {
    auto fold = [](config::claim_value& v) {
        if (auto* s = std::get_if<std::string>(&v))
            fold_ascii_case(*s);
    };
    if (c.prefix)
        fold_ascii_case(*c.prefix);
    if (c.equals)
        fold(*c.equals);
    for (auto& w : c.in)
        fold(w);
}

} // namespace

std::optional<std::string> lexical_path(std::string_view text) {
    if (text.find('\0') != std::string_view::npos)
        return std::nullopt;
    std::vector<std::string_view> kept;
    for (std::size_t start = 0; start <= text.size();) {
        auto end = std::min(text.find('/', start), text.size());
        auto segment = text.substr(start, end - start);
        // A step up cannot be judged by its text: behind a symbolic link `a/..` is not the
        // folder `a` sits in, so a grant under /srv/ would reach wherever /srv/a points.
        if (segment == "..")
            return std::nullopt;
        if (!segment.empty() && segment != ".") {
            kept.push_back(segment);
        }
        start = end + 1;
    }
    std::string out = text.starts_with('/') ? "/" : "";
    for (std::size_t i = 0; i < kept.size(); ++i)
        out.append(i == 0 ? "" : "/").append(kept[i]);
    return out.empty() ? std::string(".") : out;
}

const json::value* value_at(const json::object& root, const std::vector<std::string>& tokens) {
    if (tokens.empty())
        return nullptr; // the whole document is an object, never a tested value
    const json::value* at = root.if_contains(tokens.front());
    for (std::size_t k = 1; at && k < tokens.size(); ++k) {
        const auto& t = tokens[k];
        if (const auto* o = at->if_object()) {
            at = o->if_contains(t);
        } else if (const auto* a = at->if_array()) {
            // An index: digits without a leading zero (RFC 6901); "-" names no element.
            std::size_t i = 0;
            auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
            if (ec != std::errc() || end != t.data() + t.size() || t.empty() ||
                (t.size() > 1 && t[0] == '0') || i >= a->size())
                return nullptr;
            at = &(*a)[i];
        } else {
            return nullptr;
        }
    }
    return at;
}

argument_match::argument_match(const config::argument_condition& c)
    : c_(c), tokens_(split_pointer(c.pointer)) {
    if (c_.ignore_case)
        fold_condition_strings(c_);
    if (c.pattern) {
        RE2::Options options;
        options.set_log_errors(false);
        options.set_max_mem(1 << 20);
        options.set_case_sensitive(!c.ignore_case);
        pattern_ = std::make_unique<RE2>(*c.pattern, options);
    }
}

argument_match::~argument_match() = default;
argument_match::argument_match(argument_match&&) noexcept = default;
argument_match& argument_match::operator=(argument_match&&) noexcept = default;

bool argument_match::holds(const json::object* arguments, bool refusing) const {
    // The empty pointer is the arguments themselves: only `present` can test them.
    bool whole = tokens_.empty();
    const json::value* v = arguments && !whole ? value_at(*arguments, tokens_) : nullptr;
    bool present = whole ? arguments != nullptr : v != nullptr;
    if (c_.present && *c_.present != present)
        return false;
    bool tests = c_.equals || !c_.in.empty() || c_.prefix || c_.pattern || c_.min || c_.max;
    if (!v)
        return !tests;
    switch (test(*v)) {
    case verdict::passes:
        return true;
    case verdict::fails:
        return false;
    case verdict::other_kind:
        break;
    }
    // A value of another kind than a test reads (a number written as text, a list where a
    // name was meant) may still be what the upstream takes it for: a deny's condition holds
    // (it fails closed), a grant's does not.
    return refusing;
}

std::optional<std::string> argument_match::read_string(std::string_view text) const {
    auto read = c_.normalize_path ? lexical_path(text) : std::optional<std::string>(text);
    if (read && c_.ignore_case)
        fold_ascii_case(*read);
    return read;
}

argument_match::verdict argument_match::test(const json::value& given) const {
    json::value read;
    if (given.is_string() && (c_.normalize_path || c_.ignore_case)) {
        auto text = read_string(given.get_string());
        // A path that climbs above its start cannot be judged by where it names: a grant's
        // condition fails, a deny's holds, as for a value of another kind.
        if (!text)
            return verdict::other_kind;
        read = json::string(*text);
    }
    const json::value& v = read.is_null() ? given : read;
    bool other = false;
    auto check = [&](bool kind_ok, bool passes) {
        if (!kind_ok)
            other = true;
        return kind_ok && passes;
    };
    if (c_.equals && !check(same_kind(v, *c_.equals), scalar_equals(v, *c_.equals)))
        return other ? verdict::other_kind : verdict::fails;
    if (!c_.in.empty()) {
        bool kind_ok =
            std::any_of(c_.in.begin(), c_.in.end(), [&](const auto& w) { return same_kind(v, w); });
        bool found = std::any_of(c_.in.begin(), c_.in.end(),
                                 [&](const auto& w) { return scalar_equals(v, w); });
        if (!check(kind_ok, found))
            return other ? verdict::other_kind : verdict::fails;
    }
    std::string_view text = v.is_string() ? std::string_view(v.get_string()) : std::string_view();
    if (c_.prefix && !check(v.is_string(), text.starts_with(*c_.prefix)))
        return other ? verdict::other_kind : verdict::fails;
    if (pattern_ &&
        !check(v.is_string(),
               v.is_string() &&
                   RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *pattern_)))
        return other ? verdict::other_kind : verdict::fails;
    if (c_.min || c_.max) {
        auto n = json_number(v);
        bool within = n && (!c_.min || *n >= static_cast<long double>(*c_.min)) &&
                      (!c_.max || *n <= static_cast<long double>(*c_.max));
        if (!check(n.has_value(), within))
            return other ? verdict::other_kind : verdict::fails;
    }
    return verdict::passes;
}

} // namespace gate::policy
