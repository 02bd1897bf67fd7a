// Typed, error-collecting access to the parsed JSON document. Every read reports what was
// wrong at its RFC 6901 pointer and carries on, so one pass finds every error.
#pragma once

#include "config/load.hpp"

#include <boost/json.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gate::config::detail {

namespace json = boost::json;

// RFC 6901: `~` becomes `~0` and `/` becomes `~1`.
std::string escape_token(std::string_view token);
std::string child_pointer(std::string_view parent, std::string_view key);
std::string child_pointer(std::string_view parent, std::size_t index);

// The errors found so far, plus which pointers failed so dependent rules can stay quiet
// instead of reporting the same mistake twice.
class sink {
public:
    void add(std::string pointer, std::string reason);
    bool failed(std::string_view pointer) const;
    bool empty() const { return errors_.empty(); }
    std::size_t count() const { return errors_.size(); }
    std::vector<error> take() { return std::move(errors_); }

private:
    std::vector<error> errors_;
    std::set<std::string, std::less<>> failed_;
};

// "a string", "an integer", ... for type mismatch messages.
std::string_view kind_name(const json::value& v);
std::string quoted(std::string_view s);
std::string quoted_list(std::initializer_list<std::string_view> items);
std::string quoted_list(const std::vector<std::string_view>& items);

enum class bound { any, positive, non_negative, non_zero };

// One JSON object of the document, checked against the keys allowed at its position.
class object_view {
public:
    // Reports a non-object value and every key outside `allowed`; ok() is then false only for
    // the former, so the known keys of an object with a stray key are still read.
    object_view(const json::value& value, std::string pointer, sink& errors,
                std::initializer_list<std::string_view> allowed);

    bool ok() const { return object_ != nullptr; }
    const std::string& pointer() const { return pointer_; }
    std::string pointer_of(std::string_view key) const { return child_pointer(pointer_, key); }
    sink& errors() const { return *errors_; }

    const json::value* find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key) != nullptr; }
    bool failed(std::string_view key) const { return errors_->failed(pointer_of(key)); }

    void fail(std::string_view key, std::string reason) const;
    void fail_here(std::string reason) const;
    // Reports `key` as missing; `what` says what the field is for.
    bool require(std::string_view key, std::string_view what) const;

    // Typed reads: nullopt when absent or wrong (the latter is reported).
    std::optional<std::string> string(std::string_view key, bool allow_empty = false) const;
    std::optional<std::int64_t> integer(std::string_view key, bound b = bound::any) const;
    std::optional<double> number(std::string_view key) const;
    std::optional<bool> boolean(std::string_view key) const;
    std::optional<std::vector<std::string>> strings(std::string_view key) const;
    std::optional<string_map> strings_map(std::string_view key) const;
    // Reads an enum-valued string; reports anything outside `allowed`.
    std::optional<std::string> one_of(std::string_view key,
                                      std::initializer_list<std::string_view> allowed) const;
    // Checks the member is an array and returns it with its pointer (elements unchecked).
    const json::array* array(std::string_view key) const;

private:
    const json::object* object_ = nullptr;
    std::string pointer_;
    sink* errors_;
};

} // namespace gate::config::detail
