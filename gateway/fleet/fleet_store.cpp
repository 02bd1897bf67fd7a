#include "gateway/fleet/fleet_store.hpp"

#include "actors/guards/budget_ledger.hpp"
#include "gateway/operations/metrics.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdlib>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>

namespace gate::gateway {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

// Every key gate writes starts with this: a Redis shared with other programs keeps them
// apart (docs/fleet.md).
constexpr std::string_view prefix = "gate:";

// A sliding window as 60 slots in one hash (field: the slot's index since the epoch, value:
// its count), decided in one atomic step. ARGV: now (ms since the epoch), slot length (ms),
// limit, largest batch, the asker's rate per second (0: not measured; slot_demand::wanted).
// Returns {taken, wait ms, until ms}: slots taken, and how long until
// one would fit when none was; how long the batch may be spent (the end of its slot).
constexpr std::string_view window_script = R"lua(
local now = tonumber(ARGV[1])
local slot = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local largest = tonumber(ARGV[4])
local per_second = tonumber(ARGV[5])
local head = math.floor(now / slot)
local first = head - 59
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
local live = {}
for i = 1, #fields, 2 do
  local s = tonumber(fields[i])
  local c = tonumber(fields[i + 1])
  if s < first then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    total = total + c
    live[#live + 1] = {s, c}
  end
end
local room = limit - total
if room <= 0 then
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local need = total - limit + 1
  local freed = 0
  local at = head + 1
  for _, e in ipairs(live) do
    freed = freed + e[2]
    if freed >= need then
      at = e[1] + 60
      break
    end
  end
  return {0, at * slot - now, 0}
end
local take = math.floor(room / 16)
if take > largest then take = largest end
if per_second > 0 then
  local want = 1 + math.ceil(per_second * ((head + 1) * slot - now) * 1.25 / 1000)
  if take > want then take = want end
end
if take < 1 then take = 1 end
redis.call('HINCRBY', KEYS[1], head, take)
redis.call('PEXPIRE', KEYS[1], slot * 61)
return {take, 0, (head + 1) * slot - now}
)lua";

// A budget account's period as one counter. ARGV: allowance, expiry (ms since the epoch),
// largest reservation. Returns how many invocations this call reserved (a sixteenth of what
// is left, 1 to the largest; 0 when nothing is): the budget keeper's rule
// (budget_ledger::grant).
constexpr std::string_view budget_script = R"lua(
local allowance = tonumber(ARGV[1])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local room = allowance - used
if room <= 0 then return 0 end
local take = math.floor(room / 16)
if take < 1 then take = 1 end
if take > tonumber(ARGV[3]) then take = tonumber(ARGV[3]) end
redis.call('INCRBY', KEYS[1], take)
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return take
)lua";

// A breaker's consecutive failures across the fleet: counted, and forgotten after a day
// without failures.
constexpr std::string_view failure_script = R"lua(
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], 86400000)
return n
)lua";

std::string key(std::string_view kind, std::string_view name) {
    std::string k(prefix);
    k += kind;
    k += ':';
    k += name;
    return k;
}

std::int64_t epoch_ms(fleet_store::wall_time t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The store is retried this long after it failed; meanwhile its callers fail open at once.
constexpr auto retry_after = std::chrono::seconds(1);

} // namespace

std::variant<fleet_membership, std::string> join_fleet(const transport::redis_endpoint& ep) {
    asio::io_context io(1);
    auto client = std::make_shared<transport::redis_client>(io.get_executor(), ep);
    std::variant<fleet_membership, std::string> out = std::string("no answer");
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            struct closing {
                std::shared_ptr<transport::redis_client>& c;
                ~closing() { c->close(); }
            } closed{client};
            auto failed = [](const std::variant<transport::redis_value, std::string>& reply)
                -> std::optional<std::string> {
                if (auto* why = std::get_if<std::string>(&reply))
                    return *why;
                if (auto& v = std::get<transport::redis_value>(reply);
                    v.type == transport::redis_value::kind::error)
                    return "it answered " + v.text;
                return std::nullopt;
            };
            if (auto why = failed(co_await client->command({"PING"}))) {
                out = *why;
                co_return;
            }
            std::string fresh(32, '\0');
            if (RAND_bytes(reinterpret_cast<unsigned char*>(fresh.data()), 32) != 1) {
                out = std::string("no randomness for the cursor key");
                co_return;
            }
            auto name = key("fleet", "cursor-key");
            if (auto why = failed(co_await client->command({"SET", name, fresh, "NX"}))) {
                out = *why;
                co_return;
            }
            auto reply = co_await client->command({"GET", name});
            if (auto why = failed(reply)) {
                out = *why;
                co_return;
            }
            auto& v = std::get<transport::redis_value>(reply);
            if (v.type != transport::redis_value::kind::string || v.text.size() != 32) {
                out = "the fleet's cursor key at " + name + " is not 32 bytes";
                co_return;
            }
            fleet_membership m;
            std::copy(v.text.begin(), v.text.end(), m.cursor_key.begin());
            out = m;
        },
        asio::detached);
    io.run();
    return out;
}

fleet_store::fleet_store(asio::any_io_executor ex, transport::redis_endpoint ep, metrics& stats,
                         std::chrono::milliseconds bound)
    : ex_(ex), client_(std::make_shared<transport::redis_client>(ex, std::move(ep), bound)),
      stats_(stats) {
    stats_.shared_store(metrics::store_news::made);
}

void fleet_store::count_fallback(std::string_view state) {
    if (state == "budget")
        stats_.budget_degraded();
    else
        stats_.shared_state_degraded(state);
}

void fleet_store::failed(std::string_view state, const std::string& why) {
    count_fallback(state);
    retry_at_ = clock::now() + retry_after;
    if (!down_) {
        down_ = true;
        stats_.shared_store(metrics::store_news::down);
        spdlog::error("shared store {} failed ({}): each instance keeps its own limits, "
                      "budgets, breakers, tasks and jtis until it is back",
                      client_->endpoint().display, why);
    }
}

asio::awaitable<std::optional<transport::redis_value>>
fleet_store::run(std::string_view state, std::vector<std::string> args) {
    if (down_ && clock::now() < retry_at_) {
        count_fallback(state);
        co_return std::nullopt;
    }
    auto reply = co_await client_->command(std::move(args));
    if (auto* why = std::get_if<std::string>(&reply)) {
        failed(state, *why);
        co_return std::nullopt;
    }
    auto& value = std::get<transport::redis_value>(reply);
    if (value.type == transport::redis_value::kind::error) {
        failed(state, "Redis answered " + value.text);
        co_return std::nullopt;
    }
    if (down_) {
        down_ = false;
        stats_.shared_store(metrics::store_news::back);
        spdlog::info("shared store {} answers again: state is shared across the fleet again",
                     client_->endpoint().display);
    }
    co_return std::move(value);
}

void fleet_store::fire(std::string_view state, std::vector<std::string> args) {
    asio::co_spawn(
        ex_,
        [self = shared_from_this(), state = std::string(state), args = std::move(args)]() mutable
        -> asio::awaitable<void> { co_await self->run(state, std::move(args)); },
        asio::detached);
}

asio::awaitable<std::optional<actors::sliding_window::batch>>
fleet_store::take_window(const std::string& scope, std::int64_t limit,
                         const actors::slot_demand& demand) {
    auto now = std::chrono::system_clock::now();
    auto reply = co_await run("rate_limit",
                              {"EVAL", std::string(window_script), "1", key("window", scope),
                               std::to_string(epoch_ms(now)), "1000", std::to_string(limit),
                               std::to_string(demand.most), std::to_string(demand.per_second)});
    if (!reply || reply->type != transport::redis_value::kind::array || reply->elements.size() != 3)
        co_return std::nullopt;
    actors::sliding_window::batch b;
    b.taken = reply->elements[0].integer;
    b.wait = std::chrono::milliseconds(reply->elements[1].integer);
    b.until = clock::now() + std::chrono::milliseconds(reply->elements[2].integer);
    co_return b;
}

asio::awaitable<std::optional<std::int64_t>>
fleet_store::reserve_budget(const std::string& account, std::int64_t allowance, wall_time ends) {
    // The period's end names its counter, so a new period starts at zero; the counter outlives
    // its period by an hour for clocks that disagree.
    auto name = account + ":" + std::to_string(epoch_ms(ends) / 1000);
    auto reply = co_await run("budget", {"EVAL", std::string(budget_script), "1",
                                         key("budget", name), std::to_string(allowance),
                                         std::to_string(epoch_ms(ends) + 3'600'000),
                                         std::to_string(actors::budget_ledger::max_grant)});
    if (!reply || reply->type != transport::redis_value::kind::integer)
        co_return std::nullopt;
    co_return reply->integer;
}

asio::awaitable<std::optional<std::int64_t>>
fleet_store::breaker_side::failure(const std::string& upstream) {
    auto reply = co_await store_.run(
        "breaker", {"EVAL", std::string(failure_script), "1", key("breaker-failures", upstream)});
    if (!reply || reply->type != transport::redis_value::kind::integer)
        co_return std::nullopt;
    co_return reply->integer;
}

void fleet_store::breaker_side::success(const std::string& upstream) {
    store_.fire("breaker", {"DEL", key("breaker-failures", upstream)});
}

void fleet_store::breaker_side::opened(const std::string& upstream,
                                       std::chrono::milliseconds rest) {
    store_.fire("breaker", {"SET", key("breaker-open", upstream), "1", "PX",
                            std::to_string(std::max<std::int64_t>(rest.count(), 1))});
}

asio::awaitable<std::optional<std::vector<std::chrono::milliseconds>>>
fleet_store::breaker_side::open_for(const std::vector<std::string>& upstreams) {
    std::vector<std::chrono::milliseconds> out;
    if (upstreams.empty())
        co_return out;
    // One round trip: the remaining lives of every breaker's opening.
    std::string script = "local out = {} for i, k in ipairs(KEYS) do out[i] = "
                         "redis.call('PTTL', k) end return out";
    std::vector<std::string> args{"EVAL", script, std::to_string(upstreams.size())};
    for (const auto& u : upstreams)
        args.push_back(key("breaker-open", u));
    auto reply = co_await store_.run("breaker", std::move(args));
    if (!reply || reply->type != transport::redis_value::kind::array ||
        reply->elements.size() != upstreams.size())
        co_return std::nullopt;
    for (const auto& e : reply->elements)
        out.emplace_back(std::max<long long>(e.integer, 0));
    co_return out;
}

asio::awaitable<std::optional<bool>> fleet_store::claim_once(std::string_view state,
                                                             const std::string& name,
                                                             std::chrono::milliseconds ttl) {
    auto reply = co_await run(state, {"SET", key(state, name), "1", "NX", "PX",
                                      std::to_string(std::max<std::int64_t>(ttl.count(), 1))});
    if (!reply)
        co_return std::nullopt;
    co_return reply->type == transport::redis_value::kind::status; // OK; nil when the key was there
}

asio::awaitable<bool> fleet_store::put(std::string_view state, const std::string& name,
                                       std::string value, std::chrono::milliseconds ttl) {
    auto reply = co_await run(state, {"SET", key(state, name), std::move(value), "PX",
                                      std::to_string(std::max<std::int64_t>(ttl.count(), 1))});
    co_return reply.has_value();
}

asio::awaitable<std::optional<std::optional<std::string>>>
fleet_store::get(std::string_view state, const std::string& name) {
    auto reply = co_await run(state, {"GET", key(state, name)});
    if (!reply)
        co_return std::nullopt;
    if (reply->type != transport::redis_value::kind::string)
        co_return std::optional<std::string>{};
    co_return std::optional<std::string>{std::move(reply->text)};
}

void fleet_store::put_later(std::string_view state, const std::string& name, std::string value,
                            std::chrono::milliseconds ttl) {
    fire(state, {"SET", key(state, name), std::move(value), "PX",
                 std::to_string(std::max<std::int64_t>(ttl.count(), 1))});
}

asio::awaitable<std::optional<std::optional<std::string>>>
fleet_store::take(std::string_view state, const std::string& name) {
    auto reply = co_await run(state, {"GETDEL", key(state, name)});
    if (!reply)
        co_return std::nullopt;
    if (reply->type != transport::redis_value::kind::string)
        co_return std::optional<std::string>{};
    co_return std::optional<std::string>{std::move(reply->text)};
}

asio::awaitable<std::optional<std::vector<std::optional<std::string>>>>
fleet_store::get_many(std::string_view state, const std::vector<std::string>& names) {
    std::vector<std::optional<std::string>> out;
    if (names.empty())
        co_return out;
    std::vector<std::string> args{"MGET"};
    for (const auto& n : names)
        args.push_back(key(state, n));
    auto reply = co_await run(state, std::move(args));
    if (!reply || reply->type != transport::redis_value::kind::array ||
        reply->elements.size() != names.size())
        co_return std::nullopt;
    for (auto& e : reply->elements)
        out.push_back(e.type == transport::redis_value::kind::string
                          ? std::optional(std::move(e.text))
                          : std::nullopt);
    co_return out;
}

void fleet_store::erase(std::string_view state, const std::vector<std::string>& names) {
    if (names.empty())
        return;
    std::vector<std::string> args{"DEL"};
    for (const auto& n : names)
        args.push_back(key(state, n));
    fire(state, std::move(args));
}

void fleet_store::keep_cursor_key(const std::array<unsigned char, 32>& cursor_key) {
    fire("cursor", {"SET", key("fleet", "cursor-key"),
                    std::string(cursor_key.begin(), cursor_key.end()), "NX"});
}

namespace {
// ARGV: the records' life (ms), then each key's value for when it holds none. Returns what
// each key holds after.
constexpr std::string_view keep_first_script = R"lua(
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if not v then
    v = ARGV[i + 1]
    redis.call('SET', k, v, 'PX', ARGV[1])
  else
    redis.call('PEXPIRE', k, ARGV[1])
  end
  out[i] = v
end
return out
)lua";
} // namespace

asio::awaitable<std::optional<std::vector<std::string>>>
fleet_store::keep_first(std::string_view state,
                        const std::vector<std::pair<std::string, std::string>>& records,
                        std::chrono::milliseconds ttl) {
    std::vector<std::string> out;
    if (records.empty())
        co_return out;
    std::vector<std::string> args{"EVAL", std::string(keep_first_script),
                                  std::to_string(records.size())};
    for (const auto& r : records)
        args.push_back(key(state, r.first));
    args.push_back(std::to_string(std::max<std::int64_t>(ttl.count(), 1)));
    for (const auto& r : records)
        args.push_back(r.second);
    auto reply = co_await run(state, std::move(args));
    if (!reply || reply->type != transport::redis_value::kind::array ||
        reply->elements.size() != records.size())
        co_return std::nullopt;
    for (auto& e : reply->elements) {
        if (e.type != transport::redis_value::kind::string)
            co_return std::nullopt;
        out.push_back(std::move(e.text));
    }
    co_return out;
}

void fleet_store::touch(std::string_view state, const std::string& name,
                        std::chrono::milliseconds ttl) {
    fire(state,
         {"PEXPIRE", key(state, name), std::to_string(std::max<std::int64_t>(ttl.count(), 1))});
}

namespace {
// ARGV: the record, the list's life (ms), the most records kept (the oldest dropped: a list
// nobody takes any more stays bounded).
constexpr std::string_view append_script = R"lua(
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
if n > tonumber(ARGV[3]) then redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
)lua";
constexpr std::size_t max_appended = 1000;
constexpr std::string_view take_all_script = R"lua(
local all = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return all
)lua";
} // namespace

asio::awaitable<bool> fleet_store::append(std::string_view state, const std::string& name,
                                          std::string value, std::chrono::milliseconds ttl) {
    auto reply = co_await run(state, {"EVAL", std::string(append_script), "1", key(state, name),
                                      std::move(value),
                                      std::to_string(std::max<std::int64_t>(ttl.count(), 1)),
                                      std::to_string(max_appended)});
    co_return reply.has_value();
}

asio::awaitable<std::optional<std::vector<std::string>>>
fleet_store::take_all(std::string_view state, const std::string& name) {
    auto reply = co_await run(state, {"EVAL", std::string(take_all_script), "1", key(state, name)});
    if (!reply || reply->type != transport::redis_value::kind::array)
        co_return std::nullopt;
    std::vector<std::string> out;
    for (auto& e : reply->elements)
        out.push_back(std::move(e.text));
    co_return out;
}

namespace {
// An ended session: its record dropped, its id announced (a sorted set scored by the instant),
// announcements older than ten minutes forgotten. ARGV: the id, now (ms).
constexpr std::string_view end_session_script = R"lua(
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[2]) - 600000)
return 1
)lua";
} // namespace

void fleet_store::session_side::ended(const std::string& id) {
    store_.fire("session", {"EVAL", std::string(end_session_script), "2", key("session", id),
                            key("fleet", "sessions-ended"), id,
                            std::to_string(epoch_ms(std::chrono::system_clock::now()))});
}

asio::awaitable<std::optional<fleet_store::endings>>
fleet_store::session_side::ended_after(std::int64_t after) {
    auto reply =
        co_await store_.run("session", {"ZRANGEBYSCORE", key("fleet", "sessions-ended"),
                                        "(" + std::to_string(after), "+inf", "WITHSCORES"});
    if (!reply || reply->type != transport::redis_value::kind::array)
        co_return std::nullopt;
    endings out;
    out.latest = after;
    for (std::size_t i = 0; i + 1 < reply->elements.size(); i += 2) {
        out.ids.push_back(reply->elements[i].text);
        out.latest =
            std::max<std::int64_t>(out.latest, std::atoll(reply->elements[i + 1].text.c_str()));
    }
    co_return out;
}

namespace {
constexpr std::string_view announcements_kept = "10000";

// A Redis glob matching the names that start with `prefix` (its own glob characters escaped).
std::string glob_of_prefix(std::string_view prefix) {
    std::string out;
    for (char c : prefix) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    out += '*';
    return out;
}
} // namespace

void fleet_store::forget_side::announce(std::string_view topic, const std::string& what) {
    store_.fire("announce", {"XADD", key("fleet", topic), "MAXLEN", "~",
                             std::string(announcements_kept), "*", "what", what});
}

asio::awaitable<std::optional<fleet_store::announcements>>
fleet_store::forget_side::announced_after(std::string_view topic, const std::string& cursor) {
    auto reply = co_await store_.run(
        "announce", {"XRANGE", key("fleet", topic), "(" + cursor, "+", "COUNT", "1000"});
    if (!reply || reply->type != transport::redis_value::kind::array)
        co_return std::nullopt;
    announcements out{{}, cursor};
    for (const auto& entry : reply->elements) {
        // [id, [field, value, ...]]
        if (entry.elements.size() != 2)
            continue;
        out.cursor = entry.elements[0].text;
        const auto& fields = entry.elements[1].elements;
        for (std::size_t i = 0; i + 1 < fields.size(); i += 2)
            if (fields[i].text == "what")
                out.items.push_back(fields[i + 1].text);
    }
    co_return out;
}

asio::awaitable<std::optional<std::size_t>>
fleet_store::forget_side::erase_prefixed(std::string_view state, std::string_view prefix) {
    auto pattern = glob_of_prefix(key(state, prefix));
    std::string cursor = "0";
    std::size_t erased = 0;
    do {
        auto reply =
            co_await store_.run(state, {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (!reply || reply->elements.size() != 2)
            co_return std::nullopt;
        cursor = reply->elements[0].text;
        std::vector<std::string> args{"UNLINK"};
        for (auto& k : reply->elements[1].elements)
            args.push_back(std::move(k.text));
        auto found = args.size() - 1;
        if (found > 0 && !co_await store_.run(state, std::move(args)))
            co_return std::nullopt;
        erased += found;
    } while (cursor != "0");
    co_return erased;
}

} // namespace gate::gateway
