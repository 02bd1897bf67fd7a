// Fakes for the chain's tests (chain_test.cpp, chain_entry_test.cpp): stages and entry steps
// that journal what ran and decide at once, after a suspension, by answering or by throwing.
#pragma once

#include "gateway/pipeline/chain.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway::pipeline::fakes {

struct journal {
    std::vector<gateway::stage> ran;
    std::vector<std::string> order; // stages and entry steps, by name
    int exits = 0;
    protocol::outcome exit_outcome = protocol::outcome::ok;
    // What the fake read step reads.
    protocol::message read_gives{protocol::message_kind::request, {}, "tools/call", 1};
    bool read_modern = false;
};

// A stage that decides at once, or (`waits`) one that returns a coroutine which suspends
// before it decides.
class fake_stage final : public stage {
public:
    enum class act { proceed, answer, fail };
    fake_stage(gateway::stage id, journal& j, act a = act::proceed, bool waits = false)
        : id_(id), j_(j), a_(a), waits_(waits) {}
    gateway::stage id() const override { return id_; }
    step run(request_context& ctx) override {
        if (waits_)
            return later(ctx);
        return decide(ctx);
    }

private:
    verdict decide(request_context& ctx) {
        j_.ran.push_back(id_);
        j_.order.emplace_back(stage_name(id_));
        if (a_ == act::fail)
            throw std::runtime_error("stage failed");
        if (a_ == act::answer) {
            ctx.audit.outcome = protocol::outcome::denied;
            return verdict::answered;
        }
        return verdict::proceed;
    }

    boost::asio::awaitable<verdict> later(request_context& ctx) {
        co_await boost::asio::post(co_await boost::asio::this_coro::executor,
                                   boost::asio::use_awaitable);
        co_return decide(ctx);
    }

    gateway::stage id_;
    journal& j_;
    act a_;
    bool waits_;
};

class fake_exit final : public exit_stage {
public:
    explicit fake_exit(journal& j) : j_(j) {}
    void exit(request_context& ctx) override {
        ++j_.exits;
        j_.exit_outcome = ctx.audit.outcome;
    }

private:
    journal& j_;
};

// An entry step that decides at once or (`waits`) after a suspension, as fake_stage; the read
// step reads what the journal says.
class fake_step final : public entry_step {
public:
    fake_step(std::string name, journal& j, fake_stage::act a, bool waits)
        : name_(std::move(name)), j_(j), a_(a), waits_(waits) {}
    step run(request_context& ctx, arrival& a) override {
        if (waits_)
            return later(ctx, a);
        return decide(ctx, a);
    }

private:
    verdict decide(request_context& ctx, arrival& a) {
        j_.order.push_back(name_);
        if (a_ == fake_stage::act::fail)
            throw std::runtime_error("stage failed");
        if (a_ == fake_stage::act::answer) {
            ctx.audit.outcome = protocol::outcome::denied;
            return verdict::answered;
        }
        if (name_ == "read") {
            a.msg = j_.read_gives;
            a.modern = j_.read_modern;
        }
        return verdict::proceed;
    }

    boost::asio::awaitable<verdict> later(request_context& ctx, arrival& a) {
        co_await boost::asio::post(co_await boost::asio::this_coro::executor,
                                   boost::asio::use_awaitable);
        co_return decide(ctx, a);
    }

    std::string name_;
    journal& j_;
    fake_stage::act a_;
    bool waits_;
};

// Stages and entry steps by name: `special` acts `what`, those `waiting` names return a
// coroutine (none: all decide at once).
inline chain make_named(journal& j, std::string_view special, fake_stage::act what,
                        std::function<bool(std::string_view)> waiting) {
    auto act_of = [&](std::string_view name) {
        return name == special ? what : fake_stage::act::proceed;
    };
    auto waits = [&](std::string_view name) { return waiting && waiting(name); };
    std::array<std::unique_ptr<stage>, 8> stages;
    for (std::size_t i = 0; i < 8; ++i) {
        auto id = pipeline_order[i];
        stages[i] =
            std::make_unique<fake_stage>(id, j, act_of(stage_name(id)), waits(stage_name(id)));
    }
    entry_steps entry;
    entry.read = std::make_unique<fake_step>("read", j, act_of("read"), waits("read"));
    entry.trace = std::make_unique<fake_step>("trace", j, act_of("trace"), waits("trace"));
    entry.session = std::make_unique<fake_step>("session", j, act_of("session"), waits("session"));
    entry.envelope =
        std::make_unique<fake_step>("envelope", j, act_of("envelope"), waits("envelope"));
    return chain(std::move(stages), std::make_unique<fake_exit>(j), std::move(entry));
}

inline entry_steps proceeding_entry(journal& j) {
    entry_steps entry;
    entry.read = std::make_unique<fake_step>("read", j, fake_stage::act::proceed, false);
    entry.trace = std::make_unique<fake_step>("trace", j, fake_stage::act::proceed, false);
    entry.session = std::make_unique<fake_step>("session", j, fake_stage::act::proceed, false);
    entry.envelope = std::make_unique<fake_step>("envelope", j, fake_stage::act::proceed, false);
    return entry;
}

// `waiting`: which stages return a coroutine (none: all decide at once).
inline chain make(journal& j, gateway::stage special = gateway::stage::audit,
                  fake_stage::act what = fake_stage::act::proceed,
                  std::function<bool(gateway::stage)> waiting = {}) {
    std::function<bool(std::string_view)> by_name;
    if (waiting)
        by_name = [waiting](std::string_view name) {
            for (auto id : pipeline_order)
                if (stage_name(id) == name)
                    return waiting(id);
            return false;
        };
    return make_named(j, stage_name(special), what, by_name);
}

inline bool every_other(gateway::stage id) {
    return static_cast<int>(id) % 2 == 0;
}

// A step's verdict as the gateway takes it: a ready step as it is, a waiting one awaited.
// `ready`: whether it was ready.
inline verdict settle(step s, bool* ready = nullptr) {
    if (ready)
        *ready = s.ready();
    if (s.ready())
        return s.value();
    boost::asio::io_context io;
    std::optional<verdict> v;
    boost::asio::co_spawn(
        io, [&]() -> boost::asio::awaitable<void> { v = co_await s.take(); },
        boost::asio::detached);
    io.run();
    EXPECT_TRUE(v.has_value());
    return v.value_or(verdict::proceed);
}

// Runs the chain as the gateway does.
inline verdict run(chain& c, request_context& ctx,
                   gateway::stage from = gateway::stage::authenticate,
                   gateway::stage to = gateway::stage::egress, bool* ready = nullptr) {
    return settle(c.run(ctx, from, to), ready);
}

// Runs the chain as the call path does (call_streams::streamed): paused at each waiting stage,
// whose own coroutine this awaits, then resumed; `pauses`: how many times it paused.
inline verdict run_pausing(chain& c, request_context& ctx, int& pauses,
                           gateway::stage from = gateway::stage::route) {
    pauses = 0;
    auto s = c.run_pausing(ctx, from);
    if (s.ready())
        return s.value();
    boost::asio::io_context io;
    std::optional<verdict> v;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            while (!s.ready()) {
                ++pauses;
                std::optional<verdict> decided;
                std::string failure;
                try {
                    decided = co_await s.take();
                } catch (const std::exception& e) {
                    failure = e.what();
                }
                s = c.resume(ctx, decided, failure);
            }
            v = s.value();
        },
        boost::asio::detached);
    io.run();
    EXPECT_TRUE(v.has_value());
    return v.value_or(verdict::proceed);
}

// Enters the chain as gateway::impl::respond does.
inline verdict enter(chain& c, request_context& ctx, arrival& a, bool* ready = nullptr) {
    return settle(c.enter(ctx, a), ready);
}

inline std::vector<gateway::stage> from_to(std::size_t first, std::size_t last) {
    return {pipeline_order.begin() + static_cast<std::ptrdiff_t>(first),
            pipeline_order.begin() + static_cast<std::ptrdiff_t>(last) + 1};
}

} // namespace gate::gateway::pipeline::fakes
