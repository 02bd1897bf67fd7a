#include "gateway/mcp/task_ledger.hpp"

#include "actors/bridge.hpp"
#include "actors/federation/task_keeper.hpp"
#include "actors/supervision/supervisor.hpp"
#include "gateway/fleet/fleet_store.hpp"

#include <caf/send.hpp>

namespace gate::gateway {

namespace asio = boost::asio;

asio::awaitable<std::optional<actors::task_owner>> task_ledger::find(const std::string& task_id,
                                                                     std::uint64_t principal) {
    auto actors = actors_.load();
    if (!actors->tasks)
        co_return actors::task_owner{};
    co_return co_await actors::ask<actors::task_owner>(
        actors->tasks, [&](actors::reply_to<actors::task_owner> r) {
            return actors::task_find{task_id, principal, std::move(r)};
        });
}

void task_ledger::pin(const std::string& task_id, std::uint64_t principal,
                      const std::string& upstream) {
    if (auto actors = actors_.load(); actors->tasks)
        caf::anon_send(actors->tasks, actors::task_pin{task_id, principal, upstream});
}

void task_ledger::locate(const std::string& task_id, const std::string& upstream) {
    if (auto actors = actors_.load(); actors->tasks)
        caf::anon_send(actors->tasks, actors::task_locate{task_id, upstream});
}

asio::awaitable<std::optional<std::string>> task_ledger::fleet_record(const std::string& task_id) {
    if (!fleet_)
        co_return std::nullopt;
    auto record = co_await fleet_->get("task", task_id);
    if (!record || !*record)
        co_return std::nullopt;
    co_return std::move(**record);
}

asio::awaitable<void> task_ledger::put_fleet_record(const std::string& task_id,
                                                    std::string record) {
    if (fleet_)
        co_await fleet_->put("task", task_id, record, actors::task_registry::lifetime);
}

} // namespace gate::gateway
