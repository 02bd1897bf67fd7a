// A bridge keeper's line that keeps nothing (gateway/mcp/bridge_events.hpp), for the unit tests
// of the method groups: a test derives from it and records the events it looks at.
#pragma once

#include "gateway/mcp/bridge_events.hpp"

namespace gate::test {

using gateway::bridge_events;
using gateway::keeper_batch;

struct quiet_bridges : bridge_events {
    bool keeps_bridges() override { return false; }
    void used(const std::string&, const std::string&) override {}
    void call_sent(keeper_batch::open_call&, const std::string&, const std::string&,
                   const std::string&, std::int64_t) override {}
    void call_over(keeper_batch::open_call&) override {}
    void subscription_changed(const std::string&, const std::string&, const std::string&,
                              bool) override {}
    void listening(const std::string&, bool) override {}
    boost::asio::awaitable<std::optional<actors::call_target>>
    cancelled_call(const std::string&, const std::string&) override {
        co_return std::nullopt;
    }
    boost::asio::awaitable<std::optional<std::vector<std::string>>>
    subscribers(const std::string&, const std::string&, std::optional<std::string>) override {
        co_return std::nullopt;
    }

protected:
    ~quiet_bridges() = default;
};

} // namespace gate::test
