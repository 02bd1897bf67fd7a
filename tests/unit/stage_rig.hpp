// What the stage tests share (tests/unit/stage_*_test.cpp): a request on a federation of two
// upstreams (namespaces a and b, configured as up-a and up-b), and a stage's step driven to
// its verdict on the test's io_context, noting whether the stage decided at once (or any
// coroutine run to its end there).
#pragma once

#include "actors/federation/snapshot.hpp"
#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <type_traits>

namespace gate::test {

// A fake service's coroutine suspends once before it answers, as the gateway's do when they
// ask an actor or an upstream.
inline boost::asio::awaitable<void> suspend_once() {
    co_await boost::asio::post(co_await boost::asio::this_coro::executor,
                               boost::asio::use_awaitable);
}

struct stage_rig : ::testing::Test {
    boost::asio::io_context io;
    std::shared_ptr<config::document> doc = two_upstreams();
    gateway::request_context ctx;

    static std::shared_ptr<config::document> two_upstreams() {
        auto d = std::make_shared<config::document>();
        for (auto ns : {"a", "b"}) {
            config::upstream u;
            u.id = std::string("up-") + ns;
            u.urls = {"http://127.0.0.1:1/mcp"};
            u.namespace_ = ns;
            d->upstreams.push_back(u);
        }
        return d;
    }

    // The request loads the federation `doc` describes (change `doc` first), with a client per
    // upstream (none is ever asked: the services are fakes).
    void load() {
        auto view = std::make_shared<gateway::federation_view>();
        view->snap = actors::make_snapshot(doc, 1);
        const auto& server = doc->server;
        view->guard = transport::host_guard(server.allowed_hosts, server.allowed_hosts_any);
        for (const auto& u : doc->upstreams)
            view->add(gateway::upstream_client::make(io.get_executor(), u));
        ctx.view = std::move(view);
    }

    void SetUp() override { load(); }
    // A new request on the same federation.
    void fresh() {
        ctx = gateway::request_context{};
        load();
    }

    struct ran {
        gateway::pipeline::verdict verdict;
        bool at_once; // the stage decided without a coroutine
    };
    ran drive(gateway::pipeline::step s) {
        if (s.ready())
            return {s.value(), true};
        std::optional<gateway::pipeline::verdict> out;
        std::exception_ptr failed;
        boost::asio::co_spawn(io, s.take(),
                              [&](std::exception_ptr e, gateway::pipeline::verdict v) {
                                  failed = e;
                                  out = v;
                              });
        io.run();
        io.restart();
        if (failed)
            std::rethrow_exception(failed);
        EXPECT_TRUE(out) << "the stage's coroutine finished";
        return {out.value_or(gateway::pipeline::verdict::answered), false};
    }

    // A coroutine run to its end on the test's io_context (the fakes suspend): its value.
    template <class T> T finish(boost::asio::awaitable<T> a) {
        std::exception_ptr failed;
        bool done = false;
        if constexpr (std::is_void_v<T>) {
            boost::asio::co_spawn(io, std::move(a), [&](std::exception_ptr e) {
                failed = e;
                done = true;
            });
            io.run();
            io.restart();
            if (failed)
                std::rethrow_exception(failed);
            EXPECT_TRUE(done) << "the coroutine finished";
        } else {
            std::optional<T> out;
            boost::asio::co_spawn(io, std::move(a), [&](std::exception_ptr e, T v) {
                failed = e;
                done = true;
                if (!e)
                    out.emplace(std::move(v));
            });
            io.run();
            io.restart();
            if (failed)
                std::rethrow_exception(failed);
            EXPECT_TRUE(done) << "the coroutine finished";
            return out ? std::move(*out) : T{};
        }
    }
};

} // namespace gate::test
