// gateway/mcp/composed_instructions: the federation's instructions composed once per view and
// per change of an upstream's instructions (not at each initialize), and composed again when
// either changed: an upstream's handshake that says new instructions, a reload's view.
#include "actors/federation/snapshot.hpp"
#include "gateway/mcp/composed_instructions.hpp"
#include "gateway/upstream/upstream_siblings.hpp"
#include "gateway/upstream/upstream_state.hpp"
#include "stage_rig.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace {

using gate::gateway::composed_instructions;
using gate::gateway::federation_view;
using gate::gateway::upstream_siblings;

std::shared_ptr<const federation_view> view_of(std::shared_ptr<gate::config::document> doc,
                                               const federation_view* previous = nullptr) {
    auto view = std::make_shared<federation_view>();
    view->snap = gate::actors::make_snapshot(doc, previous ? 2 : 1);
    for (std::size_t i = 0; i < doc->upstreams.size(); ++i)
        view->add(previous ? previous->entry(i)
                           : std::make_shared<upstream_siblings>(doc->upstreams[i]));
    return view;
}

} // namespace

TEST(composed_instructions, composed_for_a_view_and_again_when_an_identity_or_the_view_changes) {
    boost::asio::io_context io;
    auto doc = gate::test::stage_rig::two_upstreams();
    doc->server.instructions = {"Use ACME's tools.", true};
    auto view = view_of(doc);
    composed_instructions memo;
    EXPECT_EQ(memo.of(view), "Use ACME's tools.") << "no upstream has answered yet";

    // up-b's handshake answers, on some thread.
    gate::gateway::upstream_state shaker(io.get_executor(), doc->upstreams[1]);
    shaker.siblings = view->entry(1);
    gate::gateway::learn_identity(shaker,
                                  boost::json::parse(R"({"instructions":"Ask b."})").as_object());
    const std::string b_line = "Upstream up-b (its tools and prompts are named b__...):\n";
    const std::string with_b = "Use ACME's tools.\n\n" + b_line + "Ask b.";
    EXPECT_EQ(memo.of(view), with_b);
    EXPECT_EQ(memo.of(view), with_b);
    EXPECT_EQ(memo.compositions(), 2u) << "composed once for the answer, not at each initialize";
    // A handshake that differs in anything but its instructions composes nothing again.
    gate::gateway::learn_identity(
        shaker, boost::json::parse(R"({"instructions":"Ask b.","serverInfo":{"version":"2"}})")
                    .as_object());
    EXPECT_EQ(memo.of(view), with_b);
    EXPECT_EQ(memo.compositions(), 2u);
    gate::gateway::learn_identity(
        shaker, boost::json::parse(R"({"instructions":"Ask b first."})").as_object());
    EXPECT_EQ(memo.of(view), "Use ACME's tools.\n\n" + b_line + "Ask b first.")
        << "a new answer: composed again";
    EXPECT_EQ(memo.compositions(), 3u);

    // A reload's view with other text: composed for it, and again for a request still on the
    // view before.
    auto other = std::make_shared<gate::config::document>(*doc);
    other->server.instructions.text = "Other.";
    auto next = view_of(other, view.get());
    EXPECT_EQ(memo.of(next).value_or("").substr(0, 8), "Other.\n\n");
    EXPECT_EQ(memo.of(view), "Use ACME's tools.\n\n" + b_line + "Ask b first.");
}
