#include "shim/session_outbox.hpp"

#include <gtest/gtest.h>

using gate::shim::session_outbox;

namespace {

std::string bytes(std::size_t n, char c = 'x') {
    return std::string(n, c);
}

} // namespace

TEST(SessionOutbox, AStreamThatIsNotReadIsCutPastTheBoundAndEverythingItHeldIsReleased) {
    session_outbox box(100, 256);
    auto stalled = box.open();
    auto reading = box.open();
    for (int i = 0; i < 9; ++i)
        EXPECT_TRUE(box.push(stalled, bytes(10)).queued);
    box.take(stalled); // 90 bytes being written, to a client that never takes them
    EXPECT_TRUE(box.push(stalled, bytes(5)).queued);
    EXPECT_EQ(box.held(), 95u);

    // The reading stream's message does not fit: the stalled stream, holding the most, goes.
    auto r = box.push(reading, bytes(10));
    EXPECT_TRUE(r.queued);
    ASSERT_EQ(r.cut.size(), 1u);
    EXPECT_EQ(r.cut[0].id, stalled);
    EXPECT_EQ(r.cut[0].bytes, 95u);
    EXPECT_EQ(r.dropped, 1u); // the one still queued; the 9 being written are the write's
    EXPECT_EQ(box.held(), 10u);
    EXPECT_EQ(box.held(stalled), 0u);

    // A cut stream takes nothing more; its later messages are dropped and counted.
    auto after = box.push(stalled, bytes(10));
    EXPECT_FALSE(after.queued);
    EXPECT_EQ(after.dropped, 1u);
    box.written(stalled); // the cancelled write ending does not release twice
    EXPECT_EQ(box.held(), 10u);
}

TEST(SessionOutbox, TheStreamReceivingIsCutWhenItHoldsTheMost) {
    session_outbox box(50, 256);
    auto flooded = box.open();
    for (int i = 0; i < 5; ++i)
        EXPECT_TRUE(box.push(flooded, bytes(10)).queued);
    auto r = box.push(flooded, bytes(10));
    EXPECT_FALSE(r.queued);
    ASSERT_EQ(r.cut.size(), 1u);
    EXPECT_EQ(r.cut[0].id, flooded);
    EXPECT_EQ(r.dropped, 6u); // five queued and the one that did not fit
    EXPECT_EQ(box.held(), 0u);
}

TEST(SessionOutbox, WrittenBytesAreReleasedAndAReadingClientIsNeverCut) {
    session_outbox box(30, 256);
    auto s = box.open();
    for (int round = 0; round < 100; ++round) {
        ASSERT_TRUE(box.push(s, bytes(10)).cut.empty());
        ASSERT_TRUE(box.push(s, bytes(10)).cut.empty());
        auto batch = box.take(s);
        ASSERT_EQ(batch.size(), 2u);
        EXPECT_EQ(box.held(s), 20u); // still held while the write is under way
        box.written(s);
        EXPECT_EQ(box.held(), 0u);
    }
}

TEST(SessionOutbox, OneMessageOfTheLargestSizeFitsAnEmptySession) {
    session_outbox box(64, 256);
    auto s = box.open();
    auto r = box.push(s, bytes(64));
    EXPECT_TRUE(r.queued);
    EXPECT_TRUE(r.cut.empty());
    EXPECT_EQ(box.take(s).front().size(), 64u);
}

TEST(SessionOutbox, TheBacklogDropsItsOldestByCountAndByBytes) {
    session_outbox box(100, 3);
    for (char c : {'a', 'b', 'c', 'd'})
        box.push(session_outbox::backlog, bytes(10, c));
    EXPECT_EQ(box.queued_messages(session_outbox::backlog), 3u); // 'a' dropped by count
    auto r = box.push(session_outbox::backlog, bytes(10, 'e'));
    EXPECT_EQ(r.backlog_dropped, 1u);
    EXPECT_TRUE(r.cut.empty());

    // By bytes: a big message pushes the oldest out, and no stream is cut for the backlog.
    auto reading = box.open();
    box.push(reading, bytes(20));
    auto big = box.push(session_outbox::backlog, bytes(60, 'f'));
    EXPECT_TRUE(big.queued);
    EXPECT_TRUE(big.cut.empty());
    EXPECT_EQ(big.backlog_dropped, 1u); // 30 + 20 + 60 > 100: 'c' goes, and then it fits
    EXPECT_EQ(box.held(), 100u);

    // The GET stream opens: the backlog moves to it, oldest first.
    auto get = box.open();
    box.adopt_backlog(get);
    EXPECT_EQ(box.queued_messages(session_outbox::backlog), 0u);
    auto moved = box.take(get);
    ASSERT_EQ(moved.size(), 3u);
    EXPECT_EQ(moved[0], bytes(10, 'd'));
    EXPECT_EQ(moved[2], bytes(60, 'f'));
    EXPECT_EQ(box.held(get), 80u);
    EXPECT_EQ(box.held(), 100u);
}

TEST(SessionOutbox, ClosingAStreamReleasesWhatItHeld) {
    session_outbox box(100, 256);
    auto s = box.open();
    box.push(s, bytes(40));
    box.take(s);
    box.push(s, bytes(30));
    EXPECT_EQ(box.held(), 70u);
    box.close(s);
    EXPECT_EQ(box.held(), 0u);
    box.close(s); // twice is harmless
    EXPECT_EQ(box.held(), 0u);
}
