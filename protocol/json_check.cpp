#include "protocol/json_check.hpp"

#include "protocol/json_scan.hpp"

#include <boost/json/parse.hpp>
#include <cstring>

namespace gate::protocol {

namespace {

class checker {
public:
    checker(std::string_view text, object_members* top)
        : p_(reinterpret_cast<const unsigned char*>(text.data())), begin_(p_),
          end_(p_ + text.size()), top_(top) {}

    bool document() {
        skip_space();
        if (!value(0))
            return false;
        skip_space();
        return p_ == end_;
    }

private:
    const unsigned char* p_;
    const unsigned char* const begin_;
    const unsigned char* const end_;
    object_members* const top_; // the top-level object's members, when asked for
    bool top_keys_plain_ = true;

    std::size_t offset(const unsigned char* at) const {
        return static_cast<std::size_t>(at - begin_);
    }

    void skip_space() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
            ++p_;
    }

    bool value(int depth) {
        if (p_ == end_)
            return false;
        switch (*p_) {
        case '"':
            return string();
        case '{':
            return object(depth + 1);
        case '[':
            return array(depth + 1);
        case 't':
            return literal("true");
        case 'f':
            return literal("false");
        case 'n':
            return literal("null");
        default:
            return (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) && number();
        }
    }

    bool object(int depth) {
        if (depth > json_max_depth)
            return false;
        bool indexed = depth == 1 && top_;
        ++p_;
        skip_space();
        if (p_ < end_ && *p_ == '}') {
            ++p_;
            if (indexed)
                top_->complete(true);
            return true;
        }
        for (;;) {
            const auto* key = p_;
            if (p_ == end_ || *p_ != '"' || !string())
                return false;
            const auto* key_end = p_;
            skip_space();
            if (p_ == end_ || *p_ != ':')
                return false;
            ++p_;
            skip_space();
            const auto* value_begin = p_;
            if (!value(depth))
                return false;
            if (indexed) {
                if (std::memchr(key, '\\', static_cast<std::size_t>(key_end - key)))
                    top_keys_plain_ = false;
                top_->add({offset(key) + 1, offset(key_end) - 1},
                          {offset(value_begin), offset(p_)});
            }
            if (auto next = after_member('}'); next != next_member) {
                if (indexed && next == closed)
                    top_->complete(top_keys_plain_);
                return next == closed;
            }
        }
    }

    bool array(int depth) {
        if (depth > json_max_depth)
            return false;
        ++p_;
        skip_space();
        if (p_ < end_ && *p_ == ']') {
            ++p_;
            return true;
        }
        for (;;) {
            if (!value(depth))
                return false;
            if (auto next = after_member(']'); next != next_member)
                return next == closed;
        }
    }

    enum after { closed, next_member, malformed };

    // After a member: the closing bracket (consumed), or a comma and the next member's start.
    after after_member(unsigned char close) {
        skip_space();
        if (p_ == end_)
            return malformed;
        if (*p_ == close) {
            ++p_;
            return closed;
        }
        if (*p_ != ',')
            return malformed;
        ++p_;
        skip_space();
        return p_ < end_ && *p_ != close ? next_member : malformed; // no trailing comma
    }

    bool literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - p_) < word.size() ||
            std::memcmp(p_, word.data(), word.size()) != 0)
            return false;
        p_ += word.size();
        return true;
    }

    bool digits() {
        const auto* start = p_;
        while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
            ++p_;
        return p_ != start;
    }

    bool number() {
        const auto* start = p_;
        if (*p_ == '-')
            ++p_;
        if (p_ == end_)
            return false;
        if (*p_ == '0')
            ++p_; // no leading zeros: "01" ends the number at "1", which then fails
        else if (!digits())
            return false;
        if (p_ < end_ && *p_ == '.') {
            ++p_;
            if (!digits())
                return false;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
                ++p_;
            const auto* exponent = p_;
            if (!digits())
                return false;
            while (exponent < p_ && *exponent == '0')
                ++exponent;
            // The parser refuses an exponent its int cannot hold once the mantissa's digits
            // are counted in ("exponent overflow"). Under ten significant digits that takes a
            // number of more than a billion digits; past them, the parser itself is asked.
            if (p_ - exponent < 10)
                return true;
            boost::system::error_code ec;
            boost::json::parse(std::string_view(reinterpret_cast<const char*>(start),
                                                static_cast<std::size_t>(p_ - start)),
                               ec);
            return !ec;
        }
        return true;
    }

    bool string() {
        ++p_;
        for (;;) {
            p_ = detail::skip_plain_blocks(p_, end_, true);
            if (p_ == end_)
                return false;
            unsigned char c = *p_;
            if (c == '"') {
                ++p_;
                return true;
            }
            if (c == '\\') {
                if (!escape())
                    return false;
            } else if (c < 0x20) {
                return false;
            } else if (c < 0x80) {
                ++p_;
            } else if (!utf8()) {
                return false;
            }
        }
    }

    bool hex4(unsigned& out) {
        if (end_ - p_ < 4)
            return false;
        out = 0;
        for (int i = 0; i < 4; ++i, ++p_) {
            unsigned char c = *p_;
            unsigned d;
            if (c >= '0' && c <= '9')
                d = c - '0';
            else if (c >= 'a' && c <= 'f')
                d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F')
                d = c - 'A' + 10;
            else
                return false;
            out = out * 16 + d;
        }
        return true;
    }

    bool escape() {
        ++p_;
        if (p_ == end_)
            return false;
        switch (*p_) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            ++p_;
            return true;
        case 'u': {
            ++p_;
            unsigned u = 0;
            if (!hex4(u) || (u >= 0xDC00 && u <= 0xDFFF)) // a trailing surrogate alone
                return false;
            if (u < 0xD800 || u > 0xDBFF)
                return true;
            // A leading surrogate: its trailing half must follow at once.
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                return false;
            p_ += 2;
            unsigned low = 0;
            return hex4(low) && low >= 0xDC00 && low <= 0xDFFF;
        }
        default:
            return false;
        }
    }

    // One UTF-8 character of two to four bytes, as RFC 3629 allows them (no overlong forms,
    // no surrogates, nothing above U+10FFFF).
    bool utf8() {
        unsigned char c = *p_;
        int follow = 0;
        unsigned char low = 0x80, high = 0xBF; // the first continuation byte's range
        if (c >= 0xC2 && c <= 0xDF) {
            follow = 1;
        } else if (c == 0xE0) {
            follow = 2;
            low = 0xA0;
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            follow = 2;
        } else if (c == 0xED) {
            follow = 2;
            high = 0x9F;
        } else if (c == 0xF0) {
            follow = 3;
            low = 0x90;
        } else if (c >= 0xF1 && c <= 0xF3) {
            follow = 3;
        } else if (c == 0xF4) {
            follow = 3;
            high = 0x8F;
        } else {
            return false;
        }
        if (end_ - p_ <= follow || p_[1] < low || p_[1] > high)
            return false;
        for (int i = 2; i <= follow; ++i)
            if (p_[i] < 0x80 || p_[i] > 0xBF)
                return false;
        p_ += follow + 1;
        return true;
    }
};

} // namespace

bool is_json(std::string_view text, object_members* top) {
    return checker(text, top).document();
}

} // namespace gate::protocol
