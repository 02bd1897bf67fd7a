// The one place gate writes a header field into a request or an answer, whoever reads it:
// upstreams, token endpoints, discovery sources, audit and OTLP receivers, webhook receivers
// and clients. A value that could end its line (CR, LF) or confuse a parser (any other
// control character, NUL included) never reaches the wire: the field is refused and the
// caller decides what a refusal means (the request is not sent, the field is left out).
// Why one writer: a method name written into `Mcp-Method` as it came once smuggled a second
// request, with gate's credential, to an upstream (docs/security.md).
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace gate::transport {

// RFC 9110 section 5.1: a field name is a token (visible ASCII but delimiters).
bool header_name_valid(std::string_view name) noexcept;

// RFC 9110 section 5.5: visible bytes, obs-text, spaces and tabs; no control character.
bool header_value_valid(std::string_view value) noexcept;

// Appends `name: value\r\n` fields to a head being written (the request or status line is
// already there, the blank line and the body come after).
class header_writer {
public:
    explicit header_writer(std::string& wire) : wire_(wire) {}

    // False, and nothing written, when the name is not a token or the value holds a control
    // character; the first refused name is kept for the caller's message.
    bool field(std::string_view name, std::string_view value);
    // A field prepared as one `Name: value` line (a credential).
    bool line(std::string_view name_and_value);

    bool ok() const noexcept { return refused_.empty(); }
    // The name of the first field refused (never its value: it may be a secret).
    const std::string& refused() const noexcept { return refused_; }

private:
    void refuse(std::string_view name);

    std::string& wire_;
    std::string refused_;
};

// The same check for a Beast message's fields; `Name` is a `http::field` or a string.
template <class Fields, class Name>
bool set_header(Fields& fields, const Name& name, std::string_view value) {
    if constexpr (std::is_convertible_v<const Name&, std::string_view>) {
        if (!header_name_valid(name))
            return false;
    }
    if (!header_value_valid(value))
        return false;
    fields.set(name, value);
    return true;
}

} // namespace gate::transport
