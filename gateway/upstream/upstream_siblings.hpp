// The clients of one upstream entry on every io thread (docs/io-threads.md), one per thread.
// They meet the same breaker and upstream actor on one guard board, so the circuit, the rate
// limit and the replicas in rotation are the process's, not a thread's; they read one copy of
// what the tools lists said (which tools are withheld, App-only, annotated for Mcp-Param-*
// headers, and their hints), since the routers' shared cache lets one thread's fetch serve
// every thread; and what one's handshake answered (the upstream's serverInfo and
// instructions, which initialize and /api/federation show on every thread) is told to the
// others.
// Made when a view is (at start and at each reload), never on a call.
#pragma once

#include "actors/guards/guard_board.hpp"
#include "config/model.hpp"
#include "gateway/upstream/tool_facts.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gate::gateway {

class upstream_client;
class upstream_credential;
struct upstream_state;

class upstream_siblings {
public:
    explicit upstream_siblings(const config::upstream& cfg)
        : entry(std::make_shared<const config::upstream>(cfg)),
          board(std::make_shared<actors::guard_board>(entry)) {}

    // The entry, one copy that every client of it reads.
    const std::shared_ptr<const config::upstream> entry;
    const std::shared_ptr<actors::guard_board> board;
    const std::shared_ptr<shared_tool_facts> facts = std::make_shared<shared_tool_facts>();

    // A client of the entry, on the thread of `ex`.
    void join(std::weak_ptr<upstream_client> client, boost::asio::any_io_executor ex);
    // What the last handshake of any client of the entry answered (empty: none yet), for a
    // client that joins after it.
    std::shared_ptr<const boost::json::object> identity() const;
    // The credential source the entry's clients ask for gate's own tokens there: the first
    // offered (`mine`, on the thread of `ex`), which the siblings keep from then on.
    std::pair<std::shared_ptr<upstream_credential>, boost::asio::any_io_executor>
    credential_keeper(std::shared_ptr<upstream_credential> mine, boost::asio::any_io_executor ex);

private:
    friend void learn_identity(upstream_state& state, boost::json::object identity);
    // `lesson` run on every client of the entry but `from`, each on its own thread (a client
    // gone meanwhile is skipped); the lock held.
    void post_to_others(const void* from, const std::function<void(upstream_client&)>& lesson);
    struct sibling {
        std::weak_ptr<upstream_client> client;
        const void* address; // the client, compared only
        boost::asio::any_io_executor ex;
    };
    mutable std::mutex mutex_;
    std::vector<sibling> clients_;
    std::shared_ptr<const boost::json::object> identity_;
    std::shared_ptr<upstream_credential> credentials_;
    boost::asio::any_io_executor credentials_ex_;
};

// What a handshake of `state`'s client answered: its identity from now on, told to the clients
// of the same entry on the other io threads (each takes it on its own thread) and kept for one
// that joins later.
void learn_identity(upstream_state& state, boost::json::object identity);
// How many times learn_identity has changed an entry's instructions in this process: what was
// composed of them (the federation's instructions) is stale once it moves. Read before reading
// them.
std::uint64_t instructions_changed();

// Every entry's siblings, found by the entry: the clients of an unchanged entry share them
// across a reload too, as each thread keeps its client.
class shared_upstreams {
public:
    // The siblings of `cfg`'s entry: those a client of the same entry joined on another
    // thread, else new ones. They live while a view or a client holds them.
    std::shared_ptr<upstream_siblings> siblings_for(const config::upstream& cfg);

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::vector<std::weak_ptr<upstream_siblings>>> by_id_;
};

} // namespace gate::gateway
