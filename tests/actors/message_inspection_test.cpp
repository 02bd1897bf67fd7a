// Every actor message can be inspected as CAF means it (actors/message_inspection.hpp): printed
// with its fields, serialized and read back when its fields are values, refused when a field
// is a process-local handle, registered under its name (actors/message_types.hpp), and read
// safely from hostile bytes.
#include "actors/message_list.hpp"
#include "actors/message_types.hpp"
#include "coordinator_fixture.hpp"

#include <boost/describe/members.hpp>
#include <boost/json/parse.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/make_message.hpp>
#include <gtest/gtest.h>

namespace gate::test {
namespace {

using message_inspection = coordinator_fixture;

template <class T> std::vector<char> saved(caf::actor_system& sys, T& x, caf::error* err) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    *err = sink(x);
    return buf;
}

template <class T> T read_back(caf::actor_system& sys, T original) {
    caf::error err;
    auto bytes = saved(sys, original, &err);
    EXPECT_FALSE(err) << caf::to_string(err);
    T copy{};
    caf::binary_deserializer source{sys, bytes};
    err = source(copy);
    EXPECT_FALSE(err) << caf::to_string(err);
    return copy;
}

TEST(message_descriptions, every_message_describes_every_member) {
    // A member added to a message and left out of its BOOST_DESCRIBE_STRUCT would be neither
    // printed nor serialized: the described count is the aggregate's.
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<boost::mp11::mp_identity, actors::message_list>>([](auto type) {
        using T = typename decltype(type)::type;
        using members = boost::describe::describe_members<T, boost::describe::mod_public>;
        EXPECT_EQ(boost::mp11::mp_size<members>::value, boost::pfr::tuple_size_v<T>)
            << boost::core::type_name<T>();
    });
}

TEST_F(message_inspection, a_message_prints_its_fields_by_name) {
    actors::bridge_call_started m{"s-1", "\"7\"", "alpha", boost::json::parse(R"({"n":[1,2]})")};
    EXPECT_EQ(to_string(m), R"(bridge_call_started(session="s-1", client_id="\"7\"", )"
                            R"(upstream="alpha", upstream_id={"n":[1,2]}))");
    // As CAF prints the message that carries it (a log line, an unexpected message).
    EXPECT_NE(caf::deep_to_string(caf::make_message(m)).find(to_string(m)), std::string::npos);
}

TEST_F(message_inspection, handles_print_as_local_and_long_values_are_cut) {
    actors::plan_list plan{nullptr, protocol::list_kind::tools, 3,
                           actors::reply_to<actors::list_plan>{}};
    EXPECT_EQ(to_string(plan), "plan_list(snap=<local>, kind=0, profile=3, reply=<local>)");
    actors::span_batch spans{std::vector<std::string>(20, std::string(1000, 'x'))};
    auto printed = to_string(spans);
    EXPECT_LT(printed.size(), 2000u);
    EXPECT_NE(printed.find("...(1000 bytes)"), std::string::npos);
    EXPECT_NE(printed.find("(20 elements)"), std::string::npos);
    // A value cannot forge the fields after it: quotes inside are escaped.
    EXPECT_EQ(to_string(actors::invalidate_upstream{R"(a", upstream="b)"}),
              R"(invalidate_upstream(upstream="a\", upstream=\"b"))");
}

TEST_F(message_inspection, values_cross_a_serializer_and_back) {
    actors::bridge_batch batch;
    batch.events.emplace_back(
        actors::bridge_call_started{"s", "1", "alpha", boost::json::value(42)});
    batch.events.emplace_back(actors::bridge_subscription{"s", "alpha", "file:///x", true});
    batch.events.emplace_back(actors::bridge_upstream_gone{"beta"});
    auto copy = read_back(sys, batch);
    ASSERT_EQ(copy.events.size(), 3u);
    EXPECT_EQ(std::get<actors::bridge_call_started>(copy.events[0]).upstream_id,
              boost::json::value(42));
    EXPECT_EQ(std::get<actors::bridge_subscription>(copy.events[1]).uri, "file:///x");
    EXPECT_EQ(std::get<actors::bridge_upstream_gone>(copy.events[2]).upstream, "beta");

    actors::audit_event e;
    e.time = std::chrono::system_clock::time_point{std::chrono::seconds(1'800'000'000)};
    e.method = "tools/call";
    e.principal = "alice";
    e.outcome = protocol::outcome::denied;
    e.hook = boost::json::parse(R"({"stage":"request","verdict":"deny"})").as_object();
    e.required_scopes = {"files:write"};
    auto audit = read_back(sys, actors::audit_batch{{e}});
    ASSERT_EQ(audit.events.size(), 1u);
    EXPECT_EQ(to_string(audit.events[0]), to_string(e));
    EXPECT_EQ(audit.events[0].hook, e.hook);
    EXPECT_FALSE(audit.events[0].name.has_value());

    auto verdicts = read_back(sys, actors::probe_verdicts{{std::nullopt, "refused"}});
    EXPECT_EQ(verdicts.why, (std::vector<std::optional<std::string>>{std::nullopt, "refused"}));
    auto spent = read_back(sys, actors::budget_reserved_elsewhere{"tenant acme", {"day", 100}, 7});
    EXPECT_EQ(spent.budget, (config::budget{"day", 100}));
    EXPECT_EQ(spent.n, 7);
}

TEST_F(message_inspection, a_process_local_handle_refuses_to_serialize) {
    actors::plan_list plan{nullptr, protocol::list_kind::tools, 3,
                           actors::reply_to<actors::list_plan>{}};
    caf::error err;
    saved(sys, plan, &err);
    EXPECT_EQ(err, caf::sec::state_not_serializable);
    actors::record_batch heard{{actors::heard_request{}}}; // its caller is a principal in memory
    saved(sys, heard, &err);
    EXPECT_EQ(err, caf::sec::state_not_serializable);
}

TEST_F(message_inspection, hostile_bytes_are_refused_not_trusted) {
    caf::error err;
    actors::bridge_batch batch;
    batch.events.emplace_back(actors::bridge_used{"s", "alpha"});
    auto bytes = saved(sys, batch, &err);
    ASSERT_FALSE(err);
    auto read = [&](std::vector<char> b) {
        actors::bridge_batch out;
        caf::binary_deserializer source{sys, b};
        return source(out);
    };
    // Cut short: every prefix fails cleanly.
    for (std::size_t n = 0; n < bytes.size(); ++n)
        EXPECT_TRUE(read({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)})) << n;
    // An alternative that does not exist.
    auto bad_index = bytes;
    bad_index[1] = 100; // after the one-byte element count
    EXPECT_EQ(read(bad_index), caf::sec::invalid_argument);
    // A count of 2^32 - 1 elements (the most CAF's wire holds) with none behind it: refused at
    // the first missing element, not allocated ahead.
    std::vector<char> huge;
    caf::binary_serializer sink{sys, huge};
    std::size_t count = 0xffffffff;
    ASSERT_FALSE(sink.begin_sequence(count));
    EXPECT_TRUE(read(huge));
    // JSON that does not parse, or of another kind than the field holds.
    actors::heard_answer answer;
    answer.params = boost::json::parse(R"({"a":1})").as_object();
    auto answer_bytes = saved(sys, answer, &err);
    EXPECT_EQ(err, caf::error{});
    std::string text(answer_bytes.begin(), answer_bytes.end());
    auto at = text.find(R"({"a":1})");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 7, "[1,2,3]");
    actors::heard_answer out;
    caf::binary_deserializer source{sys, text.data(), text.size()};
    EXPECT_EQ(source(out), caf::sec::invalid_argument);
}

TEST_F(message_inspection, every_message_is_registered_under_its_name) {
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<boost::mp11::mp_identity, actors::message_list>>([&](auto type) {
        using T = typename decltype(type)::type;
        auto name = boost::core::type_name<T>();
        auto made = sys.types().make_value(name);
        ASSERT_TRUE(made) << name;
        EXPECT_TRUE(made->matches(0, &typeid(T))) << name;
    });
    // An actor's own timer, declared in its .cpp, is registered by that .cpp.
    auto timer = sys.types().make_value("gate::actors::(anonymous namespace)::probe_overdue");
    ASSERT_TRUE(timer);
    EXPECT_EQ(timer->stringify(), "probe_overdue(board=<local>, probe=0)");
}

} // namespace
} // namespace gate::test
