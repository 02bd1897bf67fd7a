// A finished span as gate records it (spec: Traces): the server span of an MCP request, or the
// client span of one upstream call.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace gate::protocol {

struct span {
    enum class kind { server, client };

    std::string trace_id, span_id, parent_span_id; // lowercase hex; parent empty for a root
    std::string name;
    kind what = kind::server;
    std::chrono::system_clock::time_point start, end;
    std::vector<std::pair<std::string, std::string>> attributes; // string values, in order
    bool error = false;                                          // status ERROR (else UNSET)
    std::string status_message;
};

} // namespace gate::protocol
