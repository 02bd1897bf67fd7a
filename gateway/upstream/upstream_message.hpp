// An upstream's JSON-RPC message: the text it sent and, the first time anything needs it
// whole, that text parsed. A call's answer goes back to the client as its text with only
// the id replaced, so on that path the answer is read for a few members and never parsed:
// Boost.JSON spends about 1 ns per byte on a string once it holds escapes, and a tool's
// result (a file, a page) is mostly such a string (docs/benchmarks.md).
#pragma once

#include "protocol/json_splice.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

class upstream_message {
public:
    upstream_message() = default;
    upstream_message(const upstream_message& other)
        : s_(std::make_unique<state>(other.s_ ? *other.s_ : state{})) {}
    upstream_message& operator=(const upstream_message& other) {
        s_ = std::make_unique<state>(other.s_ ? *other.s_ : state{});
        return *this;
    }
    upstream_message(upstream_message&&) noexcept = default;
    upstream_message& operator=(upstream_message&&) noexcept = default;
    ~upstream_message() = default;
    // A message parsed already, with the text it was parsed from.
    upstream_message(boost::json::object body, std::string raw);
    // `raw` must be a JSON object's text (protocol::is_json, and an object); `members`, its
    // top-level members as the check indexed them (else they are found on first use).
    static upstream_message of_text(std::string raw,
                                    std::optional<protocol::object_members> members = {});

    // The exact text, to pass on byte for byte.
    const std::string& raw() const { return s_->raw; }
    // The whole object, parsed on first use.
    boost::json::object& body();
    const boost::json::object& body() const;
    boost::json::object take_body();

    // Whether the top-level object has member `key`.
    bool has(std::string_view key) const;
    // The value at `path` (a member, a member of that member, ...), parsed alone where the
    // text says unambiguously where it is; nullopt when it is absent.
    std::optional<boost::json::value> value_at(std::initializer_list<std::string_view> path) const;
    // The text with the top-level id's value replaced by `id_text`; nullopt when it has none
    // or has it twice.
    std::optional<std::string> text_with_id(std::string_view id_text) const;
    // The text of the value at `path`, when the text alone says where it is.
    std::optional<std::string_view> text_at(std::initializer_list<std::string_view> path) const;

private:
    enum class located { found, absent, unknown };
    located locate(std::initializer_list<std::string_view> path, std::string_view& text) const;

    // On the heap, so the message moves as a pointer: an answer is handed up through every
    // layer of a call.
    struct state {
        std::string raw;
        std::optional<boost::json::object> body;
        std::optional<protocol::object_members> top; // raw's members, on first use
        // The members of one top-level member's value (the result's, read for its task, type
        // and usage), and which member that is.
        std::optional<protocol::object_members> second;
        std::string second_key;
    };
    std::unique_ptr<state> s_ = std::make_unique<state>();
};

// Whether `m` is a JSON-RPC response to request `id`: "jsonrpc": "2.0", that id, and a
// result or an error with an integer code (not both).
bool is_response_to(const upstream_message& m, std::int64_t id);

} // namespace gate::gateway
