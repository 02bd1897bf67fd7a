// The kind of an attempt's failure, from the texts the sender and the connection make
// (hooks/sender.cpp, transport/client/upstream_connection.cpp), and none when the receiver
// answered, whatever the status.
#include "hooks/failure_kind.hpp"

#include <gtest/gtest.h>

using namespace gate::hooks;

TEST(failure_kind, names_each_way_an_attempt_gets_no_answer) {
    EXPECT_EQ(failure_kind("timeout: no answer within 2000 ms"), "timeout");
    EXPECT_EQ(failure_kind("timeout: the receiver's 32 connections stayed busy for 10000 ms"),
              "timeout");
    EXPECT_EQ(failure_kind("connect timeout after 1999 ms"), "timeout");
    EXPECT_EQ(failure_kind("connect timeout after 1999 ms (TLS handshake)"), "timeout");
    EXPECT_EQ(failure_kind("cannot connect: Connection refused"), "refused");
    EXPECT_EQ(failure_kind("cannot connect: Network is unreachable"), "connect");
    EXPECT_EQ(failure_kind("TLS handshake failed: certificate verify failed (SSL routines)"),
              "tls");
    EXPECT_EQ(failure_kind("TLS: cannot set the server name"), "tls");
    EXPECT_EQ(failure_kind("cannot resolve nowhere.invalid: Host not found (authoritative)"),
              "dns");
    EXPECT_EQ(failure_kind("refused: r.example resolves only to non-public addresses "
                           "(10.0.0.1); the operator has not allowed private targets"),
              "blocked");
    EXPECT_EQ(failure_kind("the url must name a valid host: host has byte 0x00 (NUL)"),
              "invalid_url");
    EXPECT_EQ(failure_kind("the url's host holds a control character"), "invalid_url");
    EXPECT_EQ(failure_kind("no answer: end of stream"), "no_answer");
    EXPECT_EQ(failure_kind("the header Gate-Event holds a control character"), "other");
    EXPECT_EQ(failure_kind(""), "other");
}

TEST(failure_kind, an_answer_is_no_failure_whatever_its_status) {
    EXPECT_EQ(attempt_failure({503, std::nullopt, "busy", 4}), std::nullopt);
    EXPECT_EQ(attempt_failure({200, std::nullopt, "", 4}), std::nullopt);
    EXPECT_EQ(attempt_failure({std::nullopt, "no answer: end of stream", std::nullopt, 4}),
              "no_answer");
    EXPECT_EQ(attempt_failure({std::nullopt, std::nullopt, std::nullopt, 4}), "other");
}
