#include "config/checks.hpp"
#include "config/parse_sections.hpp"

namespace gate::config::detail {

facts gather_facts(const json::value& root) {
    facts f;
    const auto* obj = root.if_object();
    if (obj == nullptr) {
        return f;
    }
    if (const auto* ups = obj->if_contains("upstreams"); ups != nullptr && ups->is_array()) {
        f.upstream_count = ups->get_array().size();
        for (const auto& u : ups->get_array()) {
            if (const auto* uo = u.if_object(); uo != nullptr) {
                if (const auto* id = uo->if_contains("id"); id != nullptr && id->is_string()) {
                    f.upstream_ids.emplace(id->get_string());
                }
            }
        }
    }
    if (const auto* auth = obj->if_contains("auth"); auth != nullptr && auth->is_object()) {
        if (const auto* mode = auth->get_object().if_contains("mode"); mode != nullptr) {
            f.auth_required = mode->is_string() && mode->get_string() == "required";
            f.auth_mode_known =
                mode->is_string() && (f.auth_required || mode->get_string() == "disabled");
        }
    } else if (auth != nullptr) {
        f.auth_mode_known = false;
    }
    if (const auto* routing = obj->if_contains("routing"); routing != nullptr) {
        const auto* ro = routing->if_object();
        const auto* sep = ro != nullptr ? ro->if_contains("namespaceSeparator") : nullptr;
        if (ro == nullptr) {
            f.separator_known = false;
        } else if (sep != nullptr) {
            f.separator_known = sep->is_string() && separator_problem(sep->get_string()).empty();
            if (f.separator_known) {
                f.separator = std::string(sep->get_string());
            }
        }
    }
    f.discovery = obj->contains("discovery");
    if (const auto* server = obj->if_contains("server"); server && server->is_object())
        f.public_url = server->get_object().contains("publicUrl");
    return f;
}

std::string separator_problem(std::string_view separator) {
    if (separator.empty()) {
        return "must not be empty";
    }
    for (char c : separator) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
            return "must not contain lowercase letters, digits or hyphens (got \"" +
                   std::string(separator) +
                   "\"); those characters appear in namespaces and would make splitting "
                   "names ambiguous";
        }
    }
    return "";
}

std::optional<std::string> read_http_url(const object_view& o, std::string_view key, bool secure) {
    auto value = o.string(key);
    if (!value) {
        return std::nullopt;
    }
    if (auto problem = http_url_problem(*value, secure); !problem.empty()) {
        o.fail(key, quoted(*value) + " " + problem);
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> read_env_name(const object_view& o, std::string_view key) {
    auto value = o.string(key);
    if (!value) {
        return std::nullopt;
    }
    if (!is_env_name(*value)) {
        o.fail(key, quoted(*value) +
                        " is not an environment variable name; use letters, digits and "
                        "underscores, not starting with a digit (the document names secrets, "
                        "it never contains them)");
        return std::nullopt;
    }
    return value;
}

void check_upstream_ref(const facts& f, sink& errors, const std::string& pointer,
                        const std::string& id) {
    if (f.discovery || f.upstream_ids.count(id) != 0) {
        return;
    }
    errors.add(pointer, quoted(id) + " is not the id of a configured upstream");
}

std::optional<budget> parse_budget(const object_view& parent, std::string_view key) {
    const auto* v = parent.find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view o(*v, parent.pointer_of(key), parent.errors(), {"period", "upstreamCalls"});
    if (!o.ok()) {
        return std::nullopt;
    }
    budget b;
    b.period = o.one_of("period", {"hour", "day", "week", "month"}).value_or("month");
    o.require("upstreamCalls", "the number of upstream calls allowed per period");
    b.upstream_calls = o.integer("upstreamCalls", bound::positive).value_or(0);
    return b;
}

std::optional<rate_limit> parse_rate_limit(const object_view& parent, std::string_view key) {
    const auto* v = parent.find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    object_view o(*v, parent.pointer_of(key), parent.errors(), {"requestsPerMinute"});
    if (!o.ok()) {
        return std::nullopt;
    }
    rate_limit r;
    o.require("requestsPerMinute", "the number of requests allowed per minute");
    r.requests_per_minute = o.integer("requestsPerMinute", bound::positive).value_or(0);
    return r;
}

std::optional<claim_value> scalar_of(const json::value& v) {
    if (v.is_string())
        return claim_value(std::string(v.get_string()));
    if (v.is_bool())
        return claim_value(v.get_bool());
    if (v.is_double())
        return claim_value(v.get_double());
    if (v.is_int64())
        return claim_value(static_cast<double>(v.get_int64()));
    if (v.is_uint64())
        return claim_value(static_cast<double>(v.get_uint64()));
    return std::nullopt;
}

namespace {

std::optional<std::map<std::string, claim_value>> parse_claims(const object_view& o) {
    const auto* v = o.find("claims");
    if (v == nullptr) {
        return std::nullopt;
    }
    const auto* obj = v->if_object();
    if (obj == nullptr) {
        o.fail("claims", "expected an object mapping claim names to values, got " +
                             std::string(kind_name(*v)));
        return std::nullopt;
    }
    std::map<std::string, claim_value> out;
    std::string base = o.pointer_of("claims");
    for (const auto& member : *obj) {
        std::string ptr = child_pointer(base, member.key());
        const auto& val = member.value();
        if (member.key().empty()) {
            o.errors().add(ptr, "claim names must not be empty");
        } else if (auto scalar = scalar_of(val)) {
            out.emplace(std::string(member.key()), std::move(*scalar));
        } else {
            o.errors().add(ptr, "must be a JSON scalar (a string, a number or true/false), got " +
                                    std::string(kind_name(val)));
        }
    }
    return out;
}

} // namespace

std::optional<subjects> parse_subjects(const object_view& parent, std::string_view key,
                                       bool selector_required, bool scopes_allowed) {
    const auto* v = parent.find(key);
    if (v == nullptr) {
        if (selector_required) {
            parent.require(key, "a selector (subs, groups, issuers or claims); a tenant without "
                                "one would capture every caller");
        }
        return std::nullopt;
    }
    object_view o(
        *v, parent.pointer_of(key), parent.errors(),
        scopes_allowed
            ? std::initializer_list<std::string_view>{"subs", "groups", "issuers", "claims",
                                                      "scopes"}
            : std::initializer_list<std::string_view>{"subs", "groups", "issuers", "claims"});
    if (!o.ok()) {
        return std::nullopt;
    }
    auto errors_before = o.errors().count();
    subjects s;
    s.subs = o.strings("subs").value_or(std::vector<std::string>{});
    s.groups = o.strings("groups").value_or(std::vector<std::string>{});
    s.issuers = o.strings("issuers").value_or(std::vector<std::string>{});
    s.claims = parse_claims(o).value_or(std::map<std::string, claim_value>{});
    if (scopes_allowed)
        s.scopes = parse_scopes(o);
    // A selector whose entries were all invalid is already reported; calling it empty too
    // would repeat the same mistake.
    if (s.empty() && o.errors().count() == errors_before) {
        o.fail_here(selector_required
                        ? "selects nobody; list at least one of subs, groups, issuers or claims "
                          "(a tenant without a selector would capture every caller)"
                        : "is empty; list subs, groups, issuers, claims or scopes, or omit "
                          "subjects to match any principal");
    }
    return s;
}

} // namespace gate::config::detail
