// JSON text to DOM. A first pass with Boost.JSON's event parser locates syntax errors by line
// and column and reports duplicate keys, which the DOM would otherwise resolve silently by
// keeping the last value.
#include "config/read_json.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <set>

namespace gate::config::detail {

namespace {

class duplicate_finder {
public:
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    explicit duplicate_finder(sink& errors) : errors_(&errors) {}

    bool on_document_begin(json::error_code&) { return true; }
    bool on_document_end(json::error_code&) { return true; }
    bool on_object_begin(json::error_code&) { return open(true); }
    bool on_object_end(std::size_t, json::error_code&) { return close(); }
    bool on_array_begin(json::error_code&) { return open(false); }
    bool on_array_end(std::size_t, json::error_code&) { return close(); }
    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        key_.append(s.data(), s.size());
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code&) {
        key_.append(s.data(), s.size());
        auto& top = stack_.back();
        top.key = std::move(key_);
        key_.clear();
        if (!top.keys.insert(top.key).second) {
            errors_->add(child_pointer(top.pointer, top.key),
                         "duplicate key " + quoted(top.key) +
                             "; a key may appear only once per object (the later value would "
                             "silently replace the earlier one)");
        }
        return true;
    }
    bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
    bool on_string(json::string_view, std::size_t, json::error_code&) { return value(); }
    bool on_number_part(json::string_view, json::error_code&) { return true; }
    bool on_int64(std::int64_t, json::string_view, json::error_code&) { return value(); }
    bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return value(); }
    bool on_double(double, json::string_view, json::error_code&) { return value(); }
    bool on_bool(bool, json::error_code&) { return value(); }
    bool on_null(json::error_code&) { return value(); }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }

private:
    struct frame {
        bool object;
        std::string pointer;
        std::string key;
        std::size_t index = 0;
        std::set<std::string> keys;
    };

    std::string here() const {
        if (stack_.empty()) {
            return "";
        }
        const auto& top = stack_.back();
        return top.object ? child_pointer(top.pointer, top.key)
                          : child_pointer(top.pointer, top.index);
    }
    bool open(bool object) {
        stack_.push_back({object, here(), {}, 0, {}});
        return true;
    }
    bool close() {
        stack_.pop_back();
        return value();
    }
    bool value() {
        if (!stack_.empty() && !stack_.back().object) {
            ++stack_.back().index;
        }
        return true;
    }

    sink* errors_;
    std::vector<frame> stack_;
    std::string key_;
};

std::string position(std::string_view text, std::size_t offset) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

} // namespace

std::optional<json::value> read_json(std::string_view text, sink& errors) {
    json::basic_parser<duplicate_finder> events(json::parse_options{}, errors);
    json::error_code ec;
    auto used = events.write_some(false, text.data(), text.size(), ec);
    if (!ec && used != text.size()) {
        ec = json::error::extra_data;
    }
    if (ec) {
        errors.add("", "is not valid JSON: " + ec.message() + " at " + position(text, used));
        return std::nullopt;
    }
    auto dom = json::parse(json::string_view(text.data(), text.size()), ec);
    if (ec) {
        errors.add("", "is not valid JSON: " + ec.message());
        return std::nullopt;
    }
    return dom;
}

} // namespace gate::config::detail
