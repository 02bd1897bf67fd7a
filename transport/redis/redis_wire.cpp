#include "transport/redis/redis_wire.hpp"

#include <hiredis/hiredis.h>

namespace gate::transport {

namespace {

// Replies are built straight into redis_value trees (hiredis's own objects would be copied
// again), and an array is refused above this many elements: hiredis 0.14 allocates an
// array's slots when its header arrives, so `*2147483647` would otherwise ask for 16 GiB.
constexpr int max_elements = 1 << 20;

void* attach(const redisReadTask* task, redis_value v) {
    if (task->parent) {
        auto& slot = static_cast<redis_value*>(task->parent->obj)->elements[task->idx];
        slot = std::move(v);
        return &slot; // stable: a parent's elements are sized once, when it is made
    }
    return new redis_value(std::move(v));
}

void* create_string(const redisReadTask* task, char* str, size_t len) {
    redis_value v;
    v.type = task->type == REDIS_REPLY_STATUS  ? redis_value::kind::status
             : task->type == REDIS_REPLY_ERROR ? redis_value::kind::error
                                               : redis_value::kind::string;
    v.text.assign(str, len);
    return attach(task, std::move(v));
}

void* create_array(const redisReadTask* task, int elements) {
    if (elements < 0 || elements > max_elements)
        return nullptr; // the reader reports it, and the stream is dropped
    redis_value v;
    v.type = redis_value::kind::array;
    v.elements.resize(static_cast<std::size_t>(elements));
    return attach(task, std::move(v));
}

void* create_integer(const redisReadTask* task, long long value) {
    redis_value v;
    v.type = redis_value::kind::integer;
    v.integer = value;
    return attach(task, std::move(v));
}

void* create_nil(const redisReadTask* task) {
    return attach(task, redis_value{});
}

// Only a root is ever freed by the reader; its elements live inside it.
void free_object(void* obj) {
    delete static_cast<redis_value*>(obj);
}

redisReplyObjectFunctions value_functions = {create_string, create_array, create_integer,
                                             create_nil, free_object};

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

redis_reply_reader::redis_reply_reader()
    : reader_(redisReaderCreateWithFunctions(&value_functions)) {}

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
    std::unique_ptr<redis_value> root(static_cast<redis_value*>(reply));
    return std::move(*root);
}

} // namespace gate::transport
