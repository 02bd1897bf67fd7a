#include "gateway/mcp/fleet_sessions.hpp"

#include "actors/federation/upstream_actor.hpp"
#include "gateway/upstream/upstream_client.hpp"
#include "protocol/json_preserve.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

// What the table's answer decides: the caller's session (true), another principal's (false:
// its existence is not disclosed), or none here (nullopt where the fleet's store may hold it).
std::optional<bool> decided(session_table::owner_found found, bool store) {
    switch (found) {
    case session_table::owner_found::owner:
        return true;
    case session_table::owner_found::another:
        return false;
    case session_table::owner_found::none:
        break;
    }
    return store ? std::nullopt : std::optional<bool>(false);
}

// A session's record lives this long past its last refresh: as long as an unused session
// lives on an instance.
constexpr auto session_record_life = std::chrono::hours(1);
// How often an instance reads what the fleet decided elsewhere: an opened breaker or an ended
// session reaches every instance within this.
constexpr auto follow_interval = std::chrono::milliseconds(250);
// How long a request an upstream sent a client waits for its answer through the fleet.
constexpr auto server_request_life = std::chrono::hours(1);
// How often the records of sessions used here are kept alive.
constexpr auto refresh_interval = std::chrono::minutes(1);

std::int64_t epoch_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

void fleet_sessions::join(std::shared_ptr<fleet_store> store, std::string tag,
                          const std::array<unsigned char, 32>& cursor_key) {
    store_ = std::move(store);
    tag_ = std::move(tag);
    cursor_key_ = cursor_key;
}

asio::awaitable<void> fleet_sessions::publish_session(const std::string& id,
                                                      const std::string& protocol_version,
                                                      const json::object& capabilities,
                                                      const std::string& owner) {
    if (!store_)
        co_return;
    json::object record{
        {"version", protocol_version}, {"capabilities", capabilities}, {"owner", owner}};
    co_await store_->put("session", id, json::serialize(record), session_record_life);
}

std::optional<bool> fleet_sessions::known_session_now(const std::string& id,
                                                      const policy::caller_ref& caller) const {
    return decided(sessions_.look_up(id, principal_key(caller)).found, store_ != nullptr);
}

fleet_sessions::session_use fleet_sessions::use_now(const std::string& id,
                                                    const policy::caller_ref& caller) {
    auto look = sessions_.look_up(id, principal_key(caller), clock::now());
    auto known = decided(look.found, store_ != nullptr);
    if (!known)
        return {session_found::ask_store, {}};
    if (!*known)
        return {};
    return {session_found::held, std::move(look.call)};
}

asio::awaitable<bool> fleet_sessions::known_session(const std::string& id,
                                                    const policy::caller_ref& caller,
                                                    const asio::ip::address& peer) {
    if (auto known = known_session_now(id, caller))
        co_return *known;
    auto owner = principal_key(caller);
    auto record = co_await store_->get("session", id);
    if (!record || !*record)
        co_return false;
    boost::system::error_code ec;
    auto parsed = json::parse(**record, ec);
    const auto* o = ec ? nullptr : parsed.if_object();
    const auto* version = o ? o->if_contains("version") : nullptr;
    const auto* caps = o ? o->if_contains("capabilities") : nullptr;
    const auto* by = o ? o->if_contains("owner") : nullptr;
    if (!version || !version->is_string() || !caps || !caps->is_object() || !by ||
        !by->is_string()) {
        spdlog::warn("the fleet's record of session {} is not one gate wrote; ignored", id);
        co_return false;
    }
    if (by->get_string() != owner)
        co_return false;
    // Held here from now on, it counts against the caller's share here like one opened here.
    co_return g_.admitted(sessions_.adopt(
        id,
        {std::string(version->get_string()), caps->get_object(), owner,
         caller ? std::make_shared<const principal>(*caller) : nullptr, share_holder(caller, peer)},
        clock::now()));
}

parked_fleet fleet_sessions::parked_calls() const {
    if (!store_)
        return {};
    return {store_, tag_};
}

void fleet_sessions::share_server_request(const std::string& session, const std::string& minted,
                                          const std::string& upstream,
                                          const json::value& upstream_id) {
    if (!store_)
        return;
    auto view = g_.current_view();
    auto* client = view->made(upstream); // the one that asked
    auto at = client ? client->sessions().address_of(session) : std::nullopt;
    if (!at)
        return; // not on a bridged session: only this instance can answer it
    json::object record{{"upstream", upstream},
                        {"id", upstream_id},
                        {"session", at->id},
                        {"version", at->protocol_version},
                        {"endpoint", at->endpoint}};
    store_->put_later("server-request", session + " " + minted, json::serialize(record),
                      server_request_life);
}

void fleet_sessions::answered_here(const std::string& session, const std::string& minted) {
    if (store_)
        store_->erase("server-request", {session + " " + minted});
}

asio::awaitable<std::optional<transport::http_reply>>
fleet_sessions::answer_for_fleet(const std::string& session, const protocol::message& msg,
                                 request_context& rec, std::string_view body) {
    if (!store_ || !msg.id.is_string())
        co_return std::nullopt;
    auto record =
        co_await store_->take("server-request", session + " " + std::string(msg.id.get_string()));
    if (!record || !*record)
        co_return std::nullopt;
    boost::system::error_code ec;
    auto parsed = json::parse(**record, ec);
    const auto* o = ec ? nullptr : parsed.if_object();
    const auto* upstream = o ? o->if_contains("upstream") : nullptr;
    const auto* id = o ? o->if_contains("id") : nullptr;
    const auto* at = o ? o->if_contains("session") : nullptr;
    const auto* version = o ? o->if_contains("version") : nullptr;
    const auto* endpoint = o ? o->if_contains("endpoint") : nullptr;
    if (!upstream || !upstream->is_string() || !id || !at || !at->is_string() || !version ||
        !version->is_string() || !endpoint || !endpoint->is_int64())
        co_return std::nullopt;
    auto at_index = rec.view->index_of(upstream->get_string());
    if (!at_index)
        co_return std::nullopt;
    auto* client = rec.view->client_at(*at_index).get();
    rec.upstream = client->config().id;
    json::object answer = msg.body;
    answer["id"] = *id;
    ++rec.audit.upstream_calls;
    upstream_client::session_address to{std::string(at->get_string()),
                                        std::string(version->get_string()),
                                        static_cast<std::size_t>(endpoint->get_int64())};
    if (!co_await client->sender().deliver_to(to, std::move(answer), std::string(body))) {
        rec.audit.outcome = protocol::outcome::upstream_down;
        rec.audit.error = "the upstream session that asked is gone";
    }
    co_return transport::http_reply::empty(boost::beast::http::status::accepted);
}

namespace {

// Whether an upstream's lists may be shared: not when each caller's credential fetches its own,
// nor when its entry disables caching.
bool shareable(const config::upstream& u) {
    return !u.auth.per_caller() && u.cache_ttl_ms > 0;
}

// The shared cache's name of one list: the upstream's id, what its entry points at (a changed
// entry is another upstream), the kind and the client profile.
std::string list_key(const config::upstream& entry, protocol::list_kind kind,
                     protocol::client_profile profile) {
    std::string where;
    for (const auto& u : entry.urls)
        where += u + " ";
    return entry.id + ":" + std::to_string(std::hash<std::string>{}(where)) + ":" +
           std::to_string(static_cast<int>(kind)) + ":" + std::to_string(profile);
}

} // namespace

asio::awaitable<void> fleet_sessions::fill_from_fleet(protocol::list_kind kind,
                                                      actors::list_plan& plan,
                                                      const request_context& rec) {
    if (!store_ || plan.fetch.empty())
        co_return;
    std::vector<std::size_t> asked;
    std::vector<std::string> keys;
    for (auto upstream : plan.fetch)
        if (const auto& entry = rec.view->config(upstream); shareable(entry)) {
            asked.push_back(upstream);
            keys.push_back(list_key(entry, kind, plan.profile));
        }
    auto found = co_await store_->get_many("list", keys);
    if (!found)
        co_return; // the store did not answer: the upstreams are asked
    for (std::size_t i = 0; i < asked.size(); ++i) {
        if (!(*found)[i])
            continue;
        boost::system::error_code ec;
        const auto& text = *(*found)[i];
        auto items = json::parse(text, ec);
        if (ec || !items.is_array())
            continue;
        // The list as the upstream wrote it: each item's text stored.
        std::vector<std::string> sources;
        if (auto texts = protocol::element_texts(text, {}))
            sources.assign(texts->begin(), texts->end());
        plan.from_fleet.push_back({asked[i], std::move(items.as_array()), std::move(sources)});
        std::erase(plan.fetch, asked[i]);
    }
}

void fleet_sessions::share_list(protocol::list_kind kind, protocol::client_profile profile,
                                const upstream_client& client, const json::array& items,
                                const std::vector<std::string>& sources) {
    if (!store_ || !shareable(client.config()))
        return;
    auto ttl = std::chrono::milliseconds(client.config().cache_ttl_ms);
    if (ttl.count() == 0)
        return;
    // Each item as the upstream wrote it, where that is known.
    std::string text = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            text += ',';
        protocol::write_preserving(
            items[i], i < sources.size() ? std::string_view(sources[i]) : std::string_view(), text);
    }
    text += ']';
    store_->put_later("list", list_key(client.config(), kind, profile), std::move(text), ttl);
}

void fleet_sessions::drop_shared_lists(const upstream_client& client) {
    if (!store_)
        return;
    std::vector<std::string> keys;
    for (auto kind : protocol::all_list_kinds)
        for (std::size_t p = 0; p < protocol::profile_count; ++p)
            keys.push_back(
                list_key(client.config(), kind, static_cast<protocol::client_profile>(p)));
    store_->erase("list", keys);
}

void fleet_sessions::end_session(const std::string& id) {
    if (store_)
        store_->sessions().ended(id);
}

asio::awaitable<void> fleet_sessions::follow_breakers() {
    // Breakers the fleet opened: opened here too, for what is left of their rest.
    auto view = g_.current_view();
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < view->size(); ++i)
        ids.push_back(view->config(i).id);
    auto open = co_await store_->breakers().open_for(ids);
    if (!open)
        co_return;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto& board = view->board(i);
        if ((*open)[i].count() == 0 ||
            board->view()->breaker != actors::circuit_breaker::state::closed)
            continue;
        if (auto breaker = board->breaker())
            caf::anon_send(breaker, actors::breaker_fleet_opened{board, (*open)[i], {}});
    }
}

asio::awaitable<void> fleet_sessions::follow_endings(std::int64_t& ended_after) {
    // Sessions a client ended through another instance end here too.
    if (auto ended = co_await store_->sessions().ended_after(ended_after)) {
        ended_after = ended->latest;
        for (auto& id : ended->ids)
            if (sessions_.close(id))
                g_.session_ended(std::move(id));
    }
}

asio::awaitable<void> fleet_sessions::follow() {
    if (!store_)
        co_return;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    auto ended_after = epoch_ms_now();
    auto next_refresh = clock::now() + refresh_interval;
    bool was_up = true;
    while (!g_.stopping()) {
        timer.expires_after(follow_interval);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (g_.stopping())
            break;
        co_await follow_breakers();
        co_await follow_endings(ended_after);
        // A store that restarted without its data: the next instance to start takes this key.
        if (!was_up && store_->up())
            store_->keep_cursor_key(cursor_key_);
        was_up = store_->up();
        if (clock::now() >= next_refresh) {
            auto since = next_refresh - refresh_interval;
            next_refresh = clock::now() + refresh_interval;
            for (const auto& id : sessions_.used_since(since))
                store_->touch("session", id, session_record_life);
        }
    }
}

std::optional<session_call> fleet_sessions::use(const std::string& id) {
    if (!sessions_.touch(id, std::chrono::steady_clock::now()))
        return std::nullopt;
    return sessions_.call_on(id);
}

} // namespace gate::gateway
