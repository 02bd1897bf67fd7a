// A recording read back for replay (docs/recording.md, docs/simulations.md): the client
// messages in arrival order, and what each upstream answered, looked up by what gate asks.
// Plain C++.
#pragma once

#include "protocol/recording.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::sim {

// What a simulated upstream answers one request with: the recorded reply, or the recorded
// failure it reproduces.
using recorded_reply = std::variant<boost::json::object, protocol::recorded_answer::failure>;

class recorded_answers {
public:
    void add(const protocol::recorded_answer& a);
    // The answer to `method` with `params` at `upstream`: the recorded answers to the same
    // request in their order (the last one again once they are used up); else the latest
    // recorded answer to the method with other params (a list's page asked under another
    // cursor); nullopt when the recording has none.
    std::optional<recorded_reply> next(const std::string& upstream, const std::string& method,
                                       const boost::json::object& params);

private:
    struct queue {
        std::deque<recorded_reply> replies;
    };
    std::map<std::string, queue> exact_;              // upstream \n method \n params
    std::map<std::string, recorded_reply> by_method_; // upstream \n method
};

struct recorded_traffic {
    std::vector<protocol::recorded_request> requests; // by seq
    recorded_answers answers;
    std::vector<std::string> upstreams; // named by answers and requests, sorted
};

// Reads a recording (and FILE.1 first, when `with_rotated` and it exists); the first line it
// cannot read, with its file and line number, throws std::runtime_error.
recorded_traffic read_recording(const std::string& path, bool with_rotated = true);

} // namespace gate::sim
