#include "gateway/program/first_use_clients.hpp"

#include "gateway/upstream/upstream_client.hpp"

#include <chrono>

namespace gate::gateway::program {

std::shared_ptr<upstream_client> first_use_clients::make(const federation_view& v, std::size_t i) {
    auto now = live_.current_view();
    bool replaced = now.get() != &v;
    if (replaced)
        if (auto j = now->index_of(*v.entry(i)))
            return now->client_at(*j);
    auto c = upstream_client::make(ex_, v.config(i), v.entry(i));
    wire_(c);
    if (stopping_)
        c->close();
    else if (replaced) // its entry is gone: it serves no call
        c->retire(std::chrono::milliseconds(c->config().timeouts.request_ms));
    return c;
}

} // namespace gate::gateway::program
