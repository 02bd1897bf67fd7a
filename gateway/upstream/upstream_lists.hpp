// What gate knows of one upstream's lists: whole lists fetched page by page on one admission,
// and what the tools lists said (app-only tools, hints, x-mcp-header annotations, tools a
// `block` pin withholds), which calls and introspection read.
//
// Threading: the io thread, like the client that owns it.
#pragma once

#include "gateway/upstream/definition_watch.hpp"
#include "gateway/upstream/listed_tools.hpp"
#include "gateway/upstream/tool_param_headers.hpp"
#include "gateway/upstream/upstream_call.hpp"
#include "gateway/upstream/upstream_guards.hpp"
#include "gateway/upstream/upstream_requests.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "transport/io/ask_flight.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gate::gateway {

class upstream_lists {
public:
    upstream_lists(gateway::upstream_state& state, gateway::upstream_guards& guards,
                   gateway::upstream_requests& requests)
        : state_(state), guards_(guards), requests_(requests) {}
    upstream_lists(const upstream_lists&) = delete;
    upstream_lists& operator=(const upstream_lists&) = delete;

    // Fetches one complete list, following the upstream's own nextCursor pages, on one
    // admission (its own, or the caller's ticket). With `sources`, each item's text as the
    // upstream wrote it (empty where not known), in order, for writing the list on as it was
    // written (protocol/json_preserve).
    boost::asio::awaitable<std::variant<boost::json::array, gateway::upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const gateway::call_context& ctx,
               std::vector<std::string>* sources = nullptr);
    boost::asio::awaitable<std::variant<boost::json::array, gateway::upstream_failure>>
    fetch_list(std::string_view method, std::string_view key, const gateway::call_context& ctx,
               gateway::upstream_guards::ticket admitted,
               std::vector<std::string>* sources = nullptr) {
        return requests_.fetch_list(method, key, ctx, std::move(admitted), sources);
    }

    // What gate's lists last said of the upstream's tools: app-only, hints, withheld (`tools`),
    // and what they ask to be mirrored in Mcp-Param-* headers, and which were dropped
    // (`headers`). Hold the snapshot while reading what it points to.
    std::shared_ptr<const gateway::tool_facts> facts() const { return state_.facts->now(); }

    // Whether a call that needs this upstream's tools listed (pinned definitions, a policy on
    // annotations) lists them first: not listed yet, and either not tried within the last 10 s
    // (an upstream whose list fails is not asked for it on every call) or a list is out on
    // some thread now. All three are the entry's, on every io thread (tool_facts).
    bool tools_list_wanted(std::chrono::steady_clock::time_point now) const {
        if (facts()->tools.listed())
            return false;
        // The time first: a list started since is then seen as out (listing_started).
        return now - state_.facts->list_tried() >= std::chrono::seconds(10) ||
               state_.facts->listing();
    }
    // Lists the tools before such a call (`learn` fetches them). This thread's calls arriving
    // while it is out wait for it to land, then are judged by what it said.
    template <class Learn>
    boost::asio::awaitable<void> list_first(std::chrono::steady_clock::time_point now,
                                            Learn learn) {
        auto& facts = *state_.facts;
        co_await list_first_.run_or_wait([&]() -> boost::asio::awaitable<void> {
            facts.listing_started(now);
            struct landing {
                shared_tool_facts& facts;
                ~landing() { facts.listing_landed(); }
            } landed{facts};
            co_await learn();
        });
    }
    // Whether the pin is `block` (a call of a tool gate never listed is then listed first).
    bool blocks_changed_tools() const { return state_.blocks_changed; }
    // A reload to the snapshot of `version`: tools withheld under the old pins are judged
    // again at the next list (once for the entry, however many io threads adopt it).
    void judge_tools_again(std::uint64_t version) { state_.facts->judge_again(version); }
    // Pinned definitions: judged at each tools list gate fetches (set before the first, and
    // again at each reload once the watch has the new document).
    void watch_definitions(std::shared_ptr<gateway::definition_watch> watch) {
        state_.blocks_changed = watch && watch->mode_of(state_.cfg) == policy::pin_mode::block;
        state_.definitions = std::move(watch);
    }

private:
    gateway::upstream_state& state_;
    gateway::upstream_guards& guards_;
    transport::ask_flight list_first_; // this thread's calls listing first: one list at a time
    gateway::upstream_requests& requests_;
};

} // namespace gate::gateway
