// The questions gate puts to clients on an upstream's behalf across the 2026-07-28 line
// (docs/protocol-eras.md), and the calls waiting for their answers:
//  - an input request of a 2026-07-28 upstream's input_required result, put to a client of an
//    earlier revision as a request on its call's stream, awaits its answer under a minted id
//    (an answer slot: only that session's answer fills it);
//  - a 2026-07-28 client's call on an upstream of the earlier era that asked the client
//    something is answered input_required and parked under a new requestState until the
//    client's retry of the same request (method and name) resumes it, or its time runs out.
#pragma once

#include "gateway/upstream/upstream_client.hpp"
#include "protocol/json_preserve.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/shard_key.hpp"
#include "transport/http/event_stream.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

// What a parked call's retry must repeat: its method and the name or URI it is about (its
// arguments are compared apart: as values, whatever order the retry writes them in).
std::string parked_request_key(const protocol::message& msg);
// The arguments of a call, prompt or read (null: none).
boost::json::value parked_arguments(const protocol::message& msg);

// An input request put to a client of an earlier revision, waiting for its answer.
struct answer_slot {
    explicit answer_slot(boost::asio::any_io_executor ex)
        : wake(std::move(ex), boost::asio::steady_timer::time_point::max()) {}
    std::string session;
    std::optional<protocol::sourced_object> result; // as the client wrote it
    bool answered = false;
    boost::asio::steady_timer wake;
};

// A 2026-07-28 client's call that asked the client something: kept running until its retry.
struct input_parking {
    std::shared_ptr<transport::message_queue> out; // the call's events, then its answer
    std::deque<upstream_message> requests;         // upstream requests not yet asked
    std::shared_ptr<upstream_client> client;       // the upstream that asked
    std::string bridge; // the upstream session it asked on (empty: the root session)
    std::map<std::string, boost::json::value> keys; // inputRequests key -> upstream id
    std::uint64_t next_key = 0;
    std::chrono::steady_clock::time_point expires{};
    std::string request;          // method and name of the parked call: only its retry resumes it
    boost::json::value arguments; // and its arguments (null: none), which the retry repeats
    std::string principal;        // who parked it (principal_key): only they resume it
    // The questions put to the client and not answered yet: inputRequests key -> the request
    // as the client was asked it. A retry that leaves some out is asked them again.
    std::map<std::string, std::string> asked;
    bool ask_again = false;
    std::shared_ptr<call_cancel> cancel; // the call's: its client's hang-up cancels it
    unsigned answer_status = 200;        // of its answer (protocol::modern_answer_status)
    // Headers of a refusal with a status of its own (a step-up's WWW-Authenticate).
    std::vector<std::pair<std::string, std::string>> answer_headers;
    // With a fleet's store: the call's name there (the same under each of its tokens), and,
    // on an instance that resumes a call another runs, the upstream session that asked (its
    // answers go there with deliver_to; else to the root session `client` holds).
    std::string call;
    std::optional<session_address> at;
};

// A parked call as a fleet's store keeps it (gate:parked:<token>, docs/fleet.md): enough for
// another instance to check a retry exactly as the parking one would, and to answer the
// upstream session that asked.
struct parked_record {
    std::string owner; // the tag of the instance that runs the call
    std::string call;  // input_parking::call: where that instance puts what the call says next
    std::string principal, request;
    boost::json::value arguments;
    std::string upstream; // the upstream's id
    session_address at;
    std::map<std::string, boost::json::value> keys; // inputRequests key -> upstream id
    std::map<std::string, std::string> asked;       // inputRequests key -> the question's text
};
std::string encode_parked(const parked_record& r);
// nullopt: not a record gate wrote.
std::optional<parked_record> decode_parked(std::string_view text);

// What the call's owner writes for the instance that resumed it (gate:parked-out:<call>): the
// events it said, then its answer (or the input_required that parks it again), as written.
struct parked_output {
    std::vector<std::string> events;
    std::string final;
    unsigned status = 200;
};
std::string encode_parked_output(const parked_output& o);
std::optional<parked_output> decode_parked_output(std::string_view text);

class parked_inputs {
public:
    // How long a parked call waits for the client's retry (the upstream call's own timeout
    // still bounds the whole exchange).
    static constexpr auto lifetime = std::chrono::seconds(60);

    // Awaited inputs. A slot for the request minted `minted` on `session`'s call.
    std::shared_ptr<answer_slot> expect(const std::string& minted, std::string session,
                                        boost::asio::any_io_executor ex);
    void forget(const std::string& minted);
    // The client of `session` answered (`msg`, written as `body`): true when it answered an
    // awaited input, whose call then continues with it.
    bool answer(const std::string& session, const protocol::message& msg, std::string_view body);

    // Which io thread keeps the calls parked here: each token names it (protocol/shard_key), so
    // a retry that reaches another thread moves there.
    void place_in(protocol::shard_place place) { place_ = place; }
    // Parked calls. Parks `park` until `now` + lifetime under a new token (its requestState).
    std::string park(std::shared_ptr<input_parking> park,
                     std::chrono::steady_clock::time_point now);
    // A retry naming `token`: no parked call (the upstream's own state), the parked call of
    // another request (still parked), or the parked call, no longer parked.
    struct claim {
        enum class kind { unknown, other_request, other_principal, resumed } what = kind::unknown;
        std::shared_ptr<input_parking> park;
    };
    // `retry`'s request (parked_request_key, parked_arguments) must be the parked call's, and
    // `principal` (principal_key) the one that parked it.
    claim resume(const std::string& token, const protocol::message& retry,
                 const std::string& principal);
    // The same check of a retry against a parked call's principal, request and arguments
    // (`resumed`: the retry may resume it).
    static claim::kind check(const std::string& parked_principal, const std::string& request,
                             const boost::json::value& arguments, const protocol::message& retry,
                             const std::string& principal);
    // Whether `park` is still parked here under `token`.
    bool holds(const std::string& token, const std::shared_ptr<input_parking>& park) const;
    // The call's time ran out: true when it was still parked (dropped now).
    bool expire(const std::string& token, const std::shared_ptr<input_parking>& park);
    std::size_t parked() const { return parked_.size(); }

    // The inputRequests object of a call's pending upstream requests, each as the upstream
    // wrote it under a new key (recorded, with the upstream's id); the requests are taken.
    static std::string ask(input_parking& park);
    // The client's answers (`source`: the text it wrote them in) go to the upstream that
    // asked, each under the id of its request. Null `responses` (the client never came back):
    // every question is answered with an error, so the upstream does not wait for it.
    // Otherwise a question the retry left out stays asked, and the call asks it again.
    static boost::asio::awaitable<void>
    answer_upstream(input_parking& park, const boost::json::object* responses, std::string source);
    // The questions `responses` answers (all of them when null), taken from those asked
    // (key -> the upstream's id); the call asks the rest again.
    static std::map<std::string, boost::json::value>
    answered_now(input_parking& park, const boost::json::object* responses);
    // One such answer (the result as the client wrote it, when it did, goes in `written`).
    static boost::json::object answer_of(const std::string& key,
                                         const boost::json::value& upstream_id,
                                         const boost::json::object* responses,
                                         std::string_view source, std::string& written);

private:
    std::unordered_map<std::string, std::shared_ptr<answer_slot>> awaiting_;
    std::unordered_map<std::string, std::shared_ptr<input_parking>> parked_;
    protocol::shard_place place_;
};

} // namespace gate::gateway
