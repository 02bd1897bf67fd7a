#include "gateway/mcp/parked_fleet.hpp"

#include "gateway/mcp/modern_answer.hpp"
#include "protocol/random_id.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

// The store's names of parked calls and of what they said next.
constexpr std::string_view parked_state = "parked";
constexpr std::string_view output_state = "parked-out";
// A record outlives the owner's own timer a little: the owner drops it when it expires the call.
constexpr auto record_life =
    std::chrono::duration_cast<std::chrono::milliseconds>(parked_inputs::lifetime) +
    std::chrono::seconds(5);
constexpr auto output_life =
    std::chrono::duration_cast<std::chrono::milliseconds>(parked_inputs::lifetime);
// How often a resuming instance looks for the call's output.
constexpr auto poll_interval = std::chrono::milliseconds(50);
// Where a resuming instance marks the call cancelled (its client closed its stream), and how
// often the owner looks.
constexpr std::string_view cancel_state = "parked-cancel";
constexpr auto cancel_poll = std::chrono::milliseconds(250);

// A parked call the client did not resume in time is dropped; its questions answered.
asio::awaitable<void> expire_parked(parked_inputs& inputs, std::string token,
                                    std::shared_ptr<input_parking> park) {
    asio::steady_timer timer(co_await asio::this_coro::executor, park->expires);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (!inputs.expire(token, park))
        co_return; // resumed in time
    // The client never came back: the upstream's questions get an error now rather than
    // waiting for the upstream's own timeout.
    co_await parked_inputs::answer_upstream(*park, nullptr, {});
}

// What a call claimed elsewhere says next, for the instance that resumed it, as the call says
// it: its events, then its answer or the input_required that parks it again (here, where it
// runs), each piece appended to the store. Its client's hang-up at that instance (a mark in
// the store) cancels the call here.
asio::awaitable<void> relay_parked(parked_inputs& inputs, parked_fleet fleet,
                                   std::shared_ptr<input_parking> park) {
    auto& out = *park->out;
    auto next_look = clock::now() + cancel_poll;
    for (;;) {
        parked_output said;
        bool final = false;
        while (!out.frames.empty()) {
            final = out.answered && out.frames.size() == 1;
            auto text = out.take();
            if (final)
                said.final = std::move(text);
            else
                said.events.push_back(std::move(text));
        }
        if (final) {
            said.status = park->answer_status;
        } else if (!park->requests.empty() || park->ask_again) {
            auto asked = parked_inputs::ask(*park);
            auto token = co_await park_call(inputs, fleet, park);
            said.final = input_required(nullptr, token, asked); // the retry's id goes in there
            final = true;
        }
        if (final || !said.events.empty())
            co_await fleet.store->append(output_state, park->call, encode_parked_output(said),
                                         output_life);
        if (final)
            co_return;
        // The mark is looked for on a clock, however often the call speaks meanwhile.
        if (clock::now() >= next_look && park->cancel && !park->cancel->requested()) {
            next_look = clock::now() + cancel_poll;
            if (auto mark = co_await fleet.store->take(cancel_state, park->call); mark && *mark)
                park->cancel->request("its client closed its stream at another instance");
        }
        if (!out.frames.empty())
            continue;                 // said while the store was asked
        boost::system::error_code ec; // cancellation is the wake-up: the call said something
        out.wake.expires_at(next_look);
        co_await out.wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

// This instance's parked call, with a store: dropped when not resumed in time, unless another
// instance claimed it (its record is gone from the store), whose client then hears what the
// call says next through the store. Output while it is still parked waits for the retry.
asio::awaitable<void> keep_parked(parked_inputs& inputs, parked_fleet fleet, std::string token,
                                  std::shared_ptr<input_parking> park) {
    auto& out = *park->out;
    for (;;) {
        boost::system::error_code ec; // cancellation is the wake-up: the call said something
        out.wake.expires_at(park->expires);
        co_await out.wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (!inputs.holds(token, park))
            co_return; // resumed here
        bool expired = clock::now() >= park->expires;
        if (!expired && out.frames.empty() && park->requests.empty())
            continue;
        auto record = co_await fleet.store->get(parked_state, token);
        bool claimed = record && !*record; // the store answered: no record any more
        if (!claimed && !expired)
            continue; // kept for the retry
        if (!inputs.expire(token, park))
            co_return;
        if (!claimed) {
            fleet.store->erase(parked_state, {token});
            co_await parked_inputs::answer_upstream(*park, nullptr, {});
            co_return;
        }
        // The instance that claimed it answered (or asks again) what was asked.
        park->keys.clear();
        park->asked.clear();
        park->ask_again = false;
        co_await relay_parked(inputs, fleet, park);
        co_return;
    }
}

} // namespace

asio::awaitable<std::string> park_call(parked_inputs& inputs, parked_fleet fleet,
                                       std::shared_ptr<input_parking> park) {
    auto ex = co_await asio::this_coro::executor;
    auto token = inputs.park(park, clock::now());
    auto at = fleet.store && park->client ? park->client->sessions().address_of(park->bridge)
                                          : std::nullopt;
    if (!at) { // no fleet (or no session to point at): only this instance resumes it
        asio::co_spawn(ex, expire_parked(inputs, token, park), asio::detached);
        co_return token;
    }
    if (park->call.empty())
        park->call = protocol::random_id();
    parked_record r{fleet.tag,     park->call,      park->principal,
                    park->request, park->arguments, park->client->config().id,
                    *at,           park->keys,      park->asked};
    // Written before the client hears the token: its retry may go to any instance at once.
    co_await fleet.store->put(parked_state, token, encode_parked(r), record_life);
    asio::co_spawn(ex, keep_parked(inputs, fleet, token, park), asio::detached);
    co_return token;
}

namespace {

// What the owner appended of the call's output since the last look (nullopt: nothing yet, or
// the store did not answer).
asio::awaitable<std::optional<std::vector<parked_output>>> output_now(const parked_fleet& fleet,
                                                                      const std::string& call) {
    auto got = co_await fleet.store->take_all(output_state, call);
    if (!got || got->empty())
        co_return std::nullopt;
    std::vector<parked_output> pieces;
    for (const auto& text : *got) {
        auto said = decode_parked_output(text);
        if (!said) {
            spdlog::warn("the fleet's output of parked call {} is not one gate wrote", call);
            continue;
        }
        pieces.push_back(std::move(*said));
    }
    co_return pieces;
}

// The pieces into the resumed call's queue: true once its answer is there.
bool take_pieces(input_parking& park, std::vector<parked_output> pieces) {
    for (auto& said : pieces) {
        for (auto& e : said.events)
            park.out->push(std::move(e));
        if (said.final.empty())
            continue;
        park.answer_status = said.status;
        park.out->push(std::move(said.final), true);
        return true;
    }
    return false;
}

// The rest of a resumed call's output, as the owner appends it, until its answer or `until`
// (then an error answers the retry: the owner's own timeout would have answered before).
asio::awaitable<void> follow_output(parked_fleet fleet, std::string call,
                                    std::shared_ptr<input_parking> park, clock::time_point until) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        if (park->cancel->requested())
            co_return; // its client is gone: the owner is told, and nobody reads on
        if (clock::now() + poll_interval > until) {
            park->out->push(json::serialize(protocol::make_error(
                                nullptr, protocol::error_code::internal_error,
                                "the parked call's owner stopped telling what it said")),
                            true);
            co_return;
        }
        timer.expires_after(poll_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (auto pieces = co_await output_now(fleet, call); pieces && take_pieces(*park, *pieces))
            co_return;
    }
}

// The first of the call's output, waited for (polled) until `until`.
asio::awaitable<std::optional<std::vector<parked_output>>>
first_output(const parked_fleet& fleet, const std::string& call, clock::time_point until) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        if (auto pieces = co_await output_now(fleet, call))
            co_return pieces;
        if (clock::now() + poll_interval > until)
            co_return std::nullopt;
        timer.expires_after(poll_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

// A call of no instance's own: what its retry is answered with, as the owner tells it. Its
// client's hang-up marks it cancelled for the owner.
std::shared_ptr<input_parking> answered_with(asio::any_io_executor ex, const parked_fleet& fleet,
                                             const std::string& call) {
    auto park = std::make_shared<input_parking>();
    park->out = std::make_shared<transport::message_queue>(ex);
    park->cancel = std::make_shared<call_cancel>();
    if (!call.empty())
        park->cancel->telling([store = fleet.store, call] {
            store->put_later(cancel_state, call, "1", output_life);
        });
    return park;
}

} // namespace

asio::awaitable<fleet_resume> resume_from_fleet(const parked_fleet& fleet, const std::string& token,
                                                const protocol::message& retry,
                                                const std::string& principal,
                                                const federation_view& view,
                                                const json::object* responses, std::string source) {
    using kind = fleet_resume::kind;
    if (!fleet.store)
        co_return fleet_resume{};
    // Checked before it is claimed: a refused retry leaves it for its own caller.
    auto found = co_await fleet.store->get(parked_state, token);
    if (!found || !*found)
        co_return fleet_resume{}; // no record, or no store (counted): the upstream's own state
    auto record = decode_parked(**found);
    if (!record) {
        spdlog::warn("the fleet's record of parked call {} is not one gate wrote; ignored", token);
        co_return fleet_resume{};
    }
    switch (parked_inputs::check(record->principal, record->request, record->arguments, retry,
                                 principal)) {
    case parked_inputs::claim::kind::other_principal:
        co_return fleet_resume{kind::other_principal, nullptr, {}, 0};
    case parked_inputs::claim::kind::other_request:
        co_return fleet_resume{kind::other_request, nullptr, {}, 0};
    default:
        break;
    }
    std::shared_ptr<upstream_client> client;
    if (auto at = view.index_of(record->upstream))
        client = view.client_at(*at);
    auto claimed = client ? co_await fleet.store->take(parked_state, token) : std::nullopt;
    if (!claimed || !*claimed)
        co_return fleet_resume{}; // another retry resumed it first (or the upstream is gone)
    auto ex = co_await asio::this_coro::executor;
    // The call as this instance resumes it: answers go to the session that asked.
    input_parking here;
    here.client = std::move(client);
    here.at = record->at;
    here.keys = record->keys;
    here.asked = record->asked;
    fleet_resume resumed{kind::resumed, nullptr, record->upstream, 0};
    for (const auto& [key, id] : here.keys)
        resumed.delivered += !responses || responses->contains(key) ? 1 : 0;
    co_await parked_inputs::answer_upstream(here, responses, std::move(source));
    if (here.ask_again) {
        // Questions left out are asked again, under a new token of the same call.
        record->keys = here.keys;
        record->asked = here.asked;
        auto again = protocol::random_id();
        co_await fleet.store->put(parked_state, again, encode_parked(*record), record_life);
        resumed.park = answered_with(ex, fleet, {});
        take_pieces(
            *resumed.park,
            {parked_output{{}, input_required(nullptr, again, parked_inputs::ask(here)), 200}});
        co_return resumed;
    }
    auto until =
        clock::now() + std::chrono::milliseconds(here.client->config().timeouts.request_ms);
    auto first = co_await first_output(fleet, record->call, until);
    if (!first)
        co_return fleet_resume{kind::timed_out, nullptr, record->upstream, resumed.delivered};
    // What came first answers at once; the rest streams as the owner appends it.
    resumed.park = answered_with(ex, fleet, record->call);
    if (!take_pieces(*resumed.park, std::move(*first)))
        asio::co_spawn(ex, follow_output(fleet, record->call, resumed.park, until), asio::detached);
    co_return resumed;
}

} // namespace gate::gateway
