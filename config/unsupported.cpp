#include "config/unsupported.hpp"

#include "config/json_view.hpp"

#include <array>
#include <string>

namespace gate::config {

namespace {

namespace json = boost::json;

// Empty: this version enforces every field of the schema. A field that a later schema adds
// before gate enforces it goes here, so it is refused rather than ignored.
constexpr std::array<unsupported_field, 0> table{};

// Every value of `v` that `pattern` (from `at` on) names, with its pointer.
template <class Visit>
void find(const json::value& v, std::string_view pattern, const std::string& pointer,
          Visit&& visit) {
    if (pattern.empty()) {
        visit(v, pointer);
        return;
    }
    pattern.remove_prefix(1); // the '/'
    auto end = pattern.find('/');
    auto token = pattern.substr(0, end);
    auto rest = end == std::string_view::npos ? std::string_view{} : pattern.substr(end);
    if (const auto* obj = v.if_object()) {
        if (const auto* child = obj->if_contains(token))
            find(*child, rest, detail::child_pointer(pointer, token), visit);
    } else if (const auto* arr = v.if_array(); arr && token == "*") {
        for (std::size_t i = 0; i < arr->size(); ++i)
            find((*arr)[i], rest, detail::child_pointer(pointer, i), visit);
    }
}

} // namespace

std::span<const unsupported_field> unsupported_fields() {
    return table;
}

std::vector<error> refuse_unsupported(const json::value& root) {
    std::vector<error> out;
    for (const auto& field : table) {
        find(root, field.pattern, "", [&](const json::value& v, const std::string& pointer) {
            if (field.applies && !field.applies(v))
                return;
            out.push_back({pointer, std::string(field.what) +
                                        " is not supported yet by this version of gate, which "
                                        "refuses the field rather than ignore it (" +
                                        std::string(field.consequence) +
                                        "); remove it (docs/configuration.md, \"Not supported "
                                        "yet\")"});
        });
    }
    return out;
}

} // namespace gate::config
