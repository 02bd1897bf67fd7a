// RESP, the Redis protocol, as plain C++ over hiredis's formatter and reader (the packaged
// parser, no I/O): a command as bytes, and the replies in a stream of bytes as values.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

struct redisReader;

namespace gate::transport {

struct redis_value {
    enum class kind { nil, integer, string, status, error, array };
    kind type = kind::nil;
    long long integer = 0;
    std::string text; // string, status, error
    std::vector<redis_value> elements;
};

// The command as it goes on the wire (a RESP array of bulk strings).
std::string redis_command(const std::vector<std::string>& args);

// Replies from a byte stream, in order.
class redis_reply_reader {
public:
    redis_reply_reader();
    ~redis_reply_reader();
    redis_reply_reader(const redis_reply_reader&) = delete;
    redis_reply_reader& operator=(const redis_reply_reader&) = delete;

    void feed(std::string_view bytes);
    // The next complete reply, nullopt until one is; a string when the stream is not RESP
    // (the connection must then be dropped).
    std::variant<std::nullopt_t, redis_value, std::string> next();

private:
    redisReader* reader_;
};

} // namespace gate::transport
