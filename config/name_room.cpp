#include "config/name_room.hpp"

#include "protocol/tool_name.hpp"

namespace gate::config {

std::vector<std::string> name_room_warnings(const document& doc) {
    constexpr auto common_limit = protocol::common_tool_name;
    constexpr auto common_name = protocol::common_name_room;
    std::vector<std::string> out;
    const auto& sep = doc.routing.namespace_separator;
    for (std::size_t i = 0; i < doc.upstreams.size(); ++i) {
        const auto& ns = doc.upstreams[i].namespace_;
        if (!ns)
            continue;
        auto prefix = ns->size() + sep.size();
        auto where = "upstreams[" + std::to_string(i) + "].namespace \"" + *ns + "\"";
        // Names shortened to 64 or less fit wherever they go.
        auto shortened = doc.routing.max_name_length;
        if (prefix + common_name > common_limit && (shortened == 0 || shortened > common_limit))
            out.push_back(where + " with the separator \"" + sep + "\" takes " +
                          std::to_string(prefix) + " characters of every tool name: a tool " +
                          "name over " + std::to_string(common_limit - prefix) +
                          " characters becomes longer than the 64 many clients accept (names "
                          "over 128 are left out of the lists; routing.maxNameLength: 64 "
                          "lists long names by short aliases)");
        if (protocol::check_tool_name(*ns + sep) == protocol::tool_name_fault::charset)
            out.push_back(where + " with the separator \"" + sep +
                          "\" puts characters outside the specification's (A-Z a-z 0-9 _ - .) "
                          "into every tool name: clients may refuse them");
    }
    return out;
}

} // namespace gate::config
