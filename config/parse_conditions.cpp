// The conditions of a policy entry beyond server, methods and names: on a call's arguments, on
// the tool's annotations, and the scopes a rule's subjects need (docs/configuration.md,
// "Policy"). Everything that would be evaluated later is checked here, so a rule that loads
// can always be decided: a pointer that is no RFC 6901 pointer, a pattern RE2 refuses, bounds
// the wrong way round are refused at load, at their place in the document.
#include "config/parse_sections.hpp"
#include "protocol/oauth_scope.hpp"
#include "protocol/param_headers.hpp"

#include <algorithm>
#include <re2/re2.h>
#include <variant>

namespace gate::config::detail {

namespace {

constexpr std::string_view hint_names[] = {"readOnlyHint", "destructiveHint", "idempotentHint",
                                           "openWorldHint"};

// Why `p` is not an RFC 6901 JSON pointer, or "".
std::string pointer_problem(std::string_view p) {
    if (!p.empty() && p.front() != '/')
        return "must be a JSON pointer (RFC 6901) into the arguments: empty, or starting with "
               "\"/\", for example \"/path\" or \"/options/0\"";
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] == '~' && (i + 1 == p.size() || (p[i + 1] != '0' && p[i + 1] != '1')))
            return "has \"~\" not followed by 0 or 1; write \"~0\" for \"~\" and \"~1\" for \"/\" "
                   "(RFC 6901)";
    return {};
}

void read_pattern(const object_view& c, argument_condition& out) {
    auto pattern = c.string("pattern");
    if (!pattern)
        return;
    RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(1 << 20); // a pattern's program stays small
    RE2 re(*pattern, options);
    if (!re.ok()) {
        c.fail("pattern", "is not a valid RE2 regular expression: " + re.error());
        return;
    }
    out.pattern = std::move(*pattern);
}

void read_membership(const object_view& c, argument_condition& out) {
    const auto* in = c.array("in");
    if (!in)
        return;
    if (in->empty())
        c.fail("in", "must list at least one value");
    for (std::size_t i = 0; i < in->size(); ++i) {
        if (auto scalar = scalar_of((*in)[i]))
            out.in.push_back(std::move(*scalar));
        else
            c.errors().add(child_pointer(c.pointer_of("in"), i),
                           "must be a JSON scalar (a string, a number or true/false), got " +
                               std::string(kind_name((*in)[i])));
    }
}

// "normalize" and "ignoreCase" change how a string is read: given with no test that reads a
// string, they would change nothing, and a field gate accepts is enforced or refused.
void read_string_reading(const object_view& c, argument_condition& out) {
    out.normalize_path = c.one_of("normalize", {"path"}).has_value();
    out.ignore_case = c.boolean("ignoreCase").value_or(false);
    auto is_string = [](const claim_value& v) { return std::holds_alternative<std::string>(v); };
    bool reads_strings = c.has("prefix") || c.has("pattern") ||
                         (out.equals && is_string(*out.equals)) ||
                         std::any_of(out.in.begin(), out.in.end(), is_string);
    for (const char* key : {"normalize", "ignoreCase"})
        if (c.has(key) && !reads_strings)
            c.fail(key, "changes how a string is read, and no test here reads one; give prefix, "
                        "pattern, or equals or in with a string");
}

// Numbers compare exactly up to 2^53, the integers a double holds; a larger one in a condition
// would stand for its neighbours too (a 64-bit id for ids around it).
constexpr double exact_bound = 9007199254740992.0;

bool beyond_exact(const json::value& v) {
    if (v.is_int64())
        return v.get_int64() > 9007199254740992LL || v.get_int64() < -9007199254740992LL;
    if (v.is_uint64())
        return v.get_uint64() > 9007199254740992ULL;
    return v.is_double() && (v.get_double() > exact_bound || v.get_double() < -exact_bound);
}

// The numbers a condition compares with, as written.
void check_exact(const object_view& c) {
    auto report = [&](const json::value& v, const std::string& pointer) {
        if (beyond_exact(v))
            c.errors().add(pointer, "is beyond 2^53, where numbers cannot be compared exactly; "
                                    "test it with a pattern on a string instead");
    };
    for (const char* key : {"equals", "min", "max"})
        if (const auto* v = c.find(key))
            report(*v, c.pointer_of(key));
    if (const auto* in = c.find("in"); in && in->is_array())
        for (std::size_t i = 0; i < in->get_array().size(); ++i)
            report(in->get_array()[i], child_pointer(c.pointer_of("in"), i));
}

std::optional<argument_condition> parse_condition(const object_view& c) {
    if (!c.ok())
        return std::nullopt;
    argument_condition out;
    c.require("pointer", "the JSON pointer (RFC 6901) of the argument this condition tests");
    if (auto p = c.string("pointer", true)) {
        if (auto why = pointer_problem(*p); !why.empty())
            c.fail("pointer", std::move(why));
        out.pointer = std::move(*p);
    }
    if (const auto* e = c.find("equals")) {
        out.equals = scalar_of(*e);
        if (!out.equals)
            c.fail("equals", "must be a JSON scalar (a string, a number or true/false), got " +
                                 std::string(kind_name(*e)));
    }
    read_membership(c, out);
    out.prefix = c.string("prefix");
    read_pattern(c, out);
    out.min = c.number("min");
    out.max = c.number("max");
    out.present = c.boolean("present");
    read_string_reading(c, out);
    check_exact(c);
    if (out.min && out.max && *out.min > *out.max)
        c.fail("max", "is below min; the bounds are inclusive and min must not exceed max");
    bool tests = c.has("equals") || c.has("in") || c.has("prefix") || c.has("pattern") ||
                 c.has("min") || c.has("max");
    if (!tests && !c.has("present"))
        c.fail_here("tests nothing; give equals, in, prefix, pattern, min, max or present");
    if (tests && out.present == false)
        c.fail("present", "false contradicts the other tests, which need the value present");
    return out;
}

} // namespace

std::vector<std::string> parse_scopes(const object_view& subjects) {
    auto scopes = subjects.strings("scopes").value_or(std::vector<std::string>{});
    for (std::size_t i = 0; i < scopes.size(); ++i)
        if (!protocol::is_scope_token(scopes[i]))
            subjects.errors().add(child_pointer(subjects.pointer_of("scopes"), i),
                                  quoted(protocol::printable(scopes[i], 80)) +
                                      " is not an OAuth scope token (RFC 6749 3.3: printable "
                                      "ASCII without spaces, quotes or backslashes)");
    return scopes;
}

std::vector<argument_condition> parse_argument_conditions(const object_view& entry) {
    std::vector<argument_condition> out;
    const auto* arr = entry.array("arguments");
    if (!arr)
        return out;
    if (arr->empty())
        entry.fail("arguments", "must list at least one condition, or be omitted");
    std::string base = entry.pointer_of("arguments");
    for (std::size_t i = 0; i < arr->size(); ++i) {
        object_view c((*arr)[i], child_pointer(base, i), entry.errors(),
                      {"pointer", "equals", "in", "prefix", "pattern", "min", "max", "present",
                       "normalize", "ignoreCase"});
        if (auto parsed = parse_condition(c))
            out.push_back(std::move(*parsed));
    }
    return out;
}

std::map<std::string, bool> parse_annotation_conditions(const object_view& entry) {
    std::map<std::string, bool> out;
    const auto* v = entry.find("annotations");
    if (!v)
        return out;
    object_view o(*v, entry.pointer_of("annotations"), entry.errors(),
                  {hint_names[0], hint_names[1], hint_names[2], hint_names[3]});
    if (!o.ok())
        return out;
    auto errors_before = o.errors().count();
    for (auto hint : hint_names)
        if (auto b = o.boolean(hint))
            out.emplace(std::string(hint), *b);
    if (out.empty() && o.errors().count() == errors_before)
        o.fail_here("is empty; name at least one of readOnlyHint, destructiveHint, "
                    "idempotentHint, openWorldHint, or omit annotations");
    return out;
}

} // namespace gate::config::detail
