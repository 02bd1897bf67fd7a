// What goes wrong with the simulated upstreams during a replay (docs/simulations.md, Faults):
// a JSON document of faults, each on one upstream (or one of its replicas) for a window of the
// replay's virtual time, counted from the first recorded message:
//
//   {"faults": [
//     {"upstream": "ev", "kind": "hang", "fromMs": 2000, "toMs": 9000},
//     {"upstream": "ev", "kind": "fail", "status": 503, "fromMs": 0, "toMs": 1000},
//     {"upstream": "ev", "kind": "slow", "delayMs": 1500, "fromMs": 0, "toMs": 60000},
//     {"upstream": "ev", "kind": "restart", "atMs": 4000},
//     {"upstream": "ev", "replica": 2, "kind": "down", "fromMs": 1000, "toMs": 5000},
//     {"kind": "stall", "fromMs": 3000, "toMs": 4000}]}
//
// hang: requests get no answer (gate's request timeout decides); fail: requests are answered
// with the HTTP status (default 503); slow: answered after delayMs; restart: every session is
// forgotten at atMs (their next requests get 404, as after a real restart); down: the
// listener is closed and its connections cut (connection refused) until toMs; stall (no
// upstream: the fleet's shared store): its replies are held until toMs. `replica`
// (from 1) narrows a fault to one of the upstream's urls. Plain C++.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gate::sim {

struct fault {
    enum class kind { hang, fail, slow, restart, down, stall };
    std::string upstream;
    std::optional<int> replica; // from 1; absent: every replica
    kind what = kind::hang;
    std::chrono::milliseconds from{0}, to{0}; // restart: from is the instant
    int status = 503;
    std::chrono::milliseconds delay{0};

    bool applies(const std::string& id, int replica_number) const {
        return upstream == id && (!replica || *replica == replica_number);
    }
};

struct fault_script {
    std::vector<fault> faults;

    // The fault that decides how a request at `elapsed` is answered (hang, fail or slow; the
    // first listed wins); nullopt: answered from the recording as it is.
    std::optional<fault> on_request(const std::string& upstream, int replica,
                                    std::chrono::milliseconds elapsed) const;
};

// The script in `text`, or every reason it is not one (each naming the fault's index).
std::variant<fault_script, std::vector<std::string>> parse_fault_script(std::string_view text);

} // namespace gate::sim
