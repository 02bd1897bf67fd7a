// A request's fields from the connection's arena (transport/http/fields_arena): parsed into
// it, past it on the heap, and copies on the heap alone.
#include "transport/http/http_server.hpp"

#include <algorithm>
#include <boost/beast/http/parser.hpp>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <string_view>

namespace gate::transport {
namespace {

namespace http = boost::beast::http;
using parser_t = http::request_parser<http::string_body, arena_allocator<char>>;

// Parses `text` (a whole request) with its fields in `arena`.
void parse(parser_t& p, const std::string& text) {
    boost::system::error_code ec;
    std::string_view rest = text;
    while (!p.is_done() && !rest.empty()) { // the header, then the body
        auto n = p.put(boost::asio::buffer(rest.data(), rest.size()), ec);
        ASSERT_FALSE(ec) << ec.message();
        rest.remove_prefix(n);
    }
    ASSERT_TRUE(p.is_done());
}

TEST(fields_arena, a_requests_fields_are_parsed_into_the_arena) {
    fields_arena arena;
    parser_t p(std::piecewise_construct, std::make_tuple(),
               std::make_tuple(arena_allocator<char>(&arena)));
    parse(p, "POST /mcp HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\n"
             "Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\nContent-Length: 2\r\n\r\n{}");
    const http_request& req = p.get();
    EXPECT_GT(arena.used(), 0u);
    EXPECT_EQ(req[http::field::host], "gate");
    EXPECT_EQ(req["Mcp-Session-Id"], "0123456789abcdef0123456789abcdef");
    EXPECT_EQ(req.target(), "/mcp");
    EXPECT_EQ(req.body(), "{}");
}

TEST(fields_arena, fields_past_the_arena_go_to_the_heap_and_read_the_same) {
    fields_arena arena;
    parser_t p(std::piecewise_construct, std::make_tuple(),
               std::make_tuple(arena_allocator<char>(&arena)));
    std::string text = "GET /health HTTP/1.1\r\nHost: gate\r\n";
    for (int i = 0; i < 40; ++i)
        text += "X-Field-" + std::to_string(i) + ": " + std::string(40, 'a' + i % 26) + "\r\n";
    text += "\r\n";
    parse(p, text);
    const http_request& req = p.get();
    EXPECT_TRUE(arena.holds(req[http::field::host].data())); // the first fields: the arena's
    EXPECT_FALSE(arena.holds(req["X-Field-39"].data()));     // the last: past it, the heap's
    for (int i = 0; i < 40; ++i)
        EXPECT_EQ(req["X-Field-" + std::to_string(i)], std::string(40, 'a' + i % 26)) << i;
}

TEST(fields_arena, a_copy_of_a_request_takes_the_heap_and_outlives_the_arena) {
    std::optional<http_request> copy;
    {
        fields_arena arena;
        {
            parser_t p(std::piecewise_construct, std::make_tuple(),
                       std::make_tuple(arena_allocator<char>(&arena)));
            parse(p, "GET /mcp HTTP/1.1\r\nHost: gate\r\nAccept: text/event-stream\r\n\r\n");
            copy.emplace(p.get());
            EXPECT_EQ(copy->get_allocator().arena(), nullptr);
        }
        // The arena's buffer reused for something else: the copy holds nothing of it.
        std::fill_n(reinterpret_cast<volatile char*>(&arena), sizeof arena, 'x');
    }
    EXPECT_EQ((*copy)[http::field::accept], "text/event-stream");
    EXPECT_EQ((*copy)[http::field::host], "gate");
}

TEST(fields_arena, a_move_assigned_request_keeps_its_heap_and_a_moved_one_takes_the_arena) {
    fields_arena arena;
    parser_t p(std::piecewise_construct, std::make_tuple(),
               std::make_tuple(arena_allocator<char>(&arena)));
    parse(p, "GET /mcp HTTP/1.1\r\nHost: gate\r\n\r\n");
    http_request kept;
    kept = std::move(p.get()); // the fields copied onto the heap: it may outlive the arena
    EXPECT_EQ(kept.get_allocator().arena(), nullptr);
    EXPECT_FALSE(arena.holds(kept[http::field::host].data()));
    EXPECT_EQ(kept[http::field::host], "gate");

    parser_t q(std::piecewise_construct, std::make_tuple(),
               std::make_tuple(arena_allocator<char>(&arena)));
    parse(q, "GET /mcp HTTP/1.1\r\nHost: gate\r\n\r\n");
    http_request moved(std::move(q.get())); // Beast's fields take the source's allocator
    EXPECT_EQ(moved.get_allocator().arena(), &arena);
}

TEST(fields_arena, a_request_built_in_code_uses_the_heap) {
    http_request req{http::verb::post, "/mcp", 11};
    req.set(http::field::host, "gate");
    EXPECT_EQ(req.get_allocator().arena(), nullptr);
    EXPECT_EQ(req[http::field::host], "gate");
}

} // namespace
} // namespace gate::transport
