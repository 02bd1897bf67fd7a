// Which of an upstream's tools only an App's view may call (`_meta.ui.visibility` without
// "model", protocol/tool_visibility.hpp), as gate's fetches of its tools lists last said: a
// client that runs no views is refused them on a call, as its lists leave them out.
#pragma once

#include <boost/json/array.hpp>
#include <cstddef>
#include <string>
#include <unordered_set>

namespace gate::transport {

class app_only_tools {
public:
    // Each tool of a fetched list, as that list says. Lists differ per client profile (a
    // server may list its App's tools only to hosts that render views), so a tool another
    // list left out keeps what an earlier list said of it.
    void learn(const boost::json::array& tools);
    bool app_only(const std::string& tool) const;

private:
    // Bounded: an upstream listing ever new names starts over.
    static constexpr std::size_t max_tools = 10000;
    std::unordered_set<std::string> hidden_;
};

} // namespace gate::transport
