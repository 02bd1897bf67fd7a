// Parked calls across a fleet (docs/fleet.md, docs/protocol-eras.md): with a shared store, a
// 2026-07-28 client's call parked for its input (input_required) is resumable from any
// instance. The instance that parks it records it (gate:parked:<token>); a retry on another
// instance checks the record like the parking instance would, claims it (only one retry
// resumes it), sends its answers to the upstream session that asked, and streams what the
// call says next, which the instance still running the call appends to the store piece by
// piece (gate:parked-out:<call>) once it sees its parked call was claimed elsewhere; closing
// that stream marks the call cancelled (gate:parked-cancel:<call>) for its owner.
#pragma once

#include "gateway/fleet/fleet_store.hpp"
#include "gateway/mcp/parked_inputs.hpp"
#include "gateway/pipeline/request_context.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace gate::gateway {

// The fleet's side of parked calls: no store, no fleet (each instance resumes its own).
struct parked_fleet {
    std::shared_ptr<fleet_store> store;
    std::string tag; // this instance's
};

// Parks `park` in `inputs` under a new token (its requestState) and returns it. Without a
// store the call is dropped when not resumed in time; with one it is recorded for the fleet,
// and this instance keeps it: expired, or, once another instance claimed it, what it says
// next written to the store.
boost::asio::awaitable<std::string> park_call(parked_inputs& inputs, parked_fleet fleet,
                                              std::shared_ptr<input_parking> park);

// A retry whose requestState names no call parked here, as the fleet's store knows it.
struct fleet_resume {
    enum class kind {
        unknown,         // no record (or the store did not answer): not a parked call's
        other_principal, // refused; the record stays for its own caller
        other_request,   // refused likewise
        resumed,         // `park` holds what to answer (the call's output, or asked again)
        timed_out,       // answered upstream, but the call's owner wrote nothing back in time
    } what = kind::unknown;
    std::shared_ptr<input_parking> park;
    std::string upstream;      // the upstream's id
    std::size_t delivered = 0; // answers sent to it
};
// `responses`/`source`: the retry's inputResponses and their text. The call's first output is
// waited for, and the rest followed, for as long as the upstream's request timeout.
boost::asio::awaitable<fleet_resume>
resume_from_fleet(const parked_fleet& fleet, const std::string& token,
                  const protocol::message& retry, const std::string& principal,
                  const federation_view& view, const boost::json::object* responses,
                  std::string source);

} // namespace gate::gateway
