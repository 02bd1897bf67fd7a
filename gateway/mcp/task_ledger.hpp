// The records of tasks gate keeps for the task methods: the task keeper's (actors/federation/
// task_keeper), and in a fleet the shared store's, so any instance finds a task's owner.
#pragma once

#include "gateway/mcp/task_methods.hpp"

#include <memory>

namespace gate::actors {
class actor_directory;
}

namespace gate::gateway {

class fleet_store;

class task_ledger final : public task_records {
public:
    explicit task_ledger(const actors::actor_directory& actors) : actors_(actors) {}

    // The fleet's shared store, once the gateway joined one.
    void share_through(std::shared_ptr<fleet_store> fleet) { fleet_ = std::move(fleet); }

private:
    boost::asio::awaitable<std::optional<actors::task_owner>>
    find(const std::string& task_id, std::uint64_t principal) override;
    void pin(const std::string& task_id, std::uint64_t principal,
             const std::string& upstream) override;
    void locate(const std::string& task_id, const std::string& upstream) override;
    boost::asio::awaitable<std::optional<std::string>>
    fleet_record(const std::string& task_id) override;
    boost::asio::awaitable<void> put_fleet_record(const std::string& task_id,
                                                  std::string record) override;

    const actors::actor_directory& actors_;
    std::shared_ptr<fleet_store> fleet_;
};

} // namespace gate::gateway
