#include "transport/redis_wire.hpp"

#include <hiredis/hiredis.h>

namespace gate::transport {

namespace {

redis_value value_of(const redisReply& r) {
    redis_value v;
    switch (r.type) {
    case REDIS_REPLY_INTEGER:
        v.type = redis_value::kind::integer;
        v.integer = r.integer;
        break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        v.type = r.type == REDIS_REPLY_STRING   ? redis_value::kind::string
                 : r.type == REDIS_REPLY_STATUS ? redis_value::kind::status
                                                : redis_value::kind::error;
        v.text.assign(r.str, r.len);
        break;
    case REDIS_REPLY_ARRAY:
        v.type = redis_value::kind::array;
        for (std::size_t i = 0; i < r.elements; ++i)
            v.elements.push_back(value_of(*r.element[i]));
        break;
    default:
        v.type = redis_value::kind::nil;
    }
    return v;
}

} // namespace

std::string redis_command(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    char* out = nullptr;
    int n = redisFormatCommandArgv(&out, static_cast<int>(args.size()), argv.data(), lens.data());
    std::string wire = n > 0 ? std::string(out, static_cast<std::size_t>(n)) : std::string();
    redisFreeCommand(out);
    return wire;
}

redis_reply_reader::redis_reply_reader() : reader_(redisReaderCreate()) {}

redis_reply_reader::~redis_reply_reader() {
    redisReaderFree(reader_);
}

void redis_reply_reader::feed(std::string_view bytes) {
    redisReaderFeed(reader_, bytes.data(), bytes.size());
}

std::variant<std::nullopt_t, redis_value, std::string> redis_reply_reader::next() {
    void* reply = nullptr;
    if (redisReaderGetReply(reader_, &reply) != REDIS_OK)
        return std::string(reader_->errstr);
    if (!reply)
        return std::nullopt;
    auto v = value_of(*static_cast<redisReply*>(reply));
    freeReplyObject(reply);
    return v;
}

} // namespace gate::transport
