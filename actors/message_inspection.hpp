// What an actor message holds, for CAF's inspectors: printed (a log line, a test's failure,
// CAF's "unexpected message"), and serialized by a caf::serializer, so that a message whose
// fields are values could cross a process. A message type is described once, beside it
// (BOOST_DESCRIBE_STRUCT: its members in order) in gate::actors, where CAF finds `inspect` and
// `to_string` below by the message's namespace; a message in an anonymous namespace (an
// actor's own timer) names them there (`using actors::inspect; using actors::to_string;`).
// Nothing else is written per message, and a member added to a message but left out of its
// description is caught by message_inspection_test.
//
// A field holding a process-local handle (a snapshot or board pointer, a reply channel, a
// callback) prints as <local> and refuses to serialize (caf::sec::state_not_serializable):
// such a message says it cannot leave its process instead of losing the handle on the way.
// Printing cuts long text (a JSON body, a tool list) so a crash report stays readable.
#pragma once

#include "actors/reply.hpp"

#include <atomic>
#include <boost/core/type_name.hpp>
#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/error.hpp>
#include <caf/sec.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gate::actors {

template <class T>
concept described_message = boost::describe::has_describe_members<T>::value;

namespace detail {

template <class T, template <class...> class Of> struct is_instance : std::false_type {};
template <class... Ts, template <class...> class Of>
struct is_instance<Of<Ts...>, Of> : std::true_type {};
template <class T, template <class...> class Of>
inline constexpr bool is = is_instance<std::remove_cv_t<T>, Of>::value;

// Handles that mean something only in this process.
template <class T>
inline constexpr bool is_local =
    std::is_pointer_v<T> || is<T, std::shared_ptr> || is<T, std::unique_ptr> ||
    is<T, std::weak_ptr> || is<T, std::function> || is<T, reply_to> || is<T, std::atomic>;

template <class T>
inline constexpr bool is_json =
    std::is_same_v<T, boost::json::value> || std::is_same_v<T, boost::json::object> ||
    std::is_same_v<T, boost::json::array>;

// Text longer than this prints cut, with its length.
inline constexpr std::size_t printed_text_most = 160;
// A list prints its first elements only, with how many there are.
inline constexpr std::size_t printed_elements_most = 8;

// Text in quotes, escaped as JSON escapes it: a value cannot forge the fields after it.
inline void print_text(std::string& out, std::string_view text) {
    auto shown = text.substr(0, printed_text_most);
    out += boost::json::serialize(boost::json::string_view(shown.data(), shown.size()));
    if (shown.size() < text.size())
        out += "...(" + std::to_string(text.size()) + " bytes)";
}

// JSON as it is written, cut like text.
inline void print_json(std::string& out, const std::string& json) {
    out.append(json, 0, printed_text_most);
    if (json.size() > printed_text_most)
        out += "...(" + std::to_string(json.size()) + " bytes)";
}

// The message's own name, without its namespaces ("plan_list", not "gate::actors::plan_list").
inline std::string unqualified(std::string name) {
    auto depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i + 1 < name.size(); ++i) {
        if (name[i] == '<' || name[i] == '(')
            ++depth;
        else if (name[i] == '>' || name[i] == ')')
            --depth;
        else if (depth == 0 && name[i] == ':' && name[i + 1] == ':')
            start = i + 2;
    }
    return name.substr(start);
}

template <class T> void print_field(std::string& out, const T& x);

template <described_message T> void print_described(std::string& out, const T& x) {
    out += unqualified(boost::core::type_name<T>());
    out += '(';
    bool first = true;
    using members = boost::describe::describe_members<T, boost::describe::mod_public>;
    boost::mp11::mp_for_each<members>([&](auto member) {
        out += first ? "" : ", ";
        first = false;
        out += member.name;
        out += '=';
        print_field(out, x.*member.pointer);
    });
    out += ')';
}

template <class T> void print_elements(std::string& out, const T& xs) {
    out += '[';
    std::size_t n = 0;
    bool cut = false;
    for (const auto& x : xs) {
        if (n == printed_elements_most) {
            cut = true;
            out += ", ...";
            break;
        }
        out += n++ == 0 ? "" : ", ";
        print_field(out, x);
    }
    out += ']';
    if (cut)
        out += "(" + std::to_string(std::ranges::distance(xs)) + " elements)";
}

template <class T> void print_field(std::string& out, const T& x) {
    if constexpr (described_message<T>)
        print_described(out, x);
    else if constexpr (is_local<T>)
        out += "<local>";
    else if constexpr (is<T, std::optional>)
        x ? print_field(out, *x) : void(out += "none");
    else if constexpr (is<T, std::variant>)
        std::visit([&](const auto& held) { print_field(out, held); }, x);
    else if constexpr (is_json<T>)
        print_json(out, boost::json::serialize(x));
    else if constexpr (std::is_same_v<T, bool>)
        out += x ? "true" : "false";
    else if constexpr (std::is_enum_v<T>)
        out += std::to_string(static_cast<std::int64_t>(x));
    else if constexpr (std::is_arithmetic_v<T>)
        out += std::to_string(x);
    else if constexpr (std::is_convertible_v<const T&, std::string_view>)
        print_text(out, x);
    else if constexpr (is<T, std::pair>) {
        out += '(';
        print_field(out, x.first);
        out += ", ";
        print_field(out, x.second);
        out += ')';
    } else if constexpr (std::ranges::range<T>)
        print_elements(out, x);
    else
        out += caf::deep_to_string(x); // CAF's own: durations, time points, handles, errors
}

template <class F, class T> caf::error serialize_field(F& f, T& x);

template <class F, described_message T> caf::error serialize_described(F& f, T& x) {
    caf::error err;
    using members = boost::describe::describe_members<T, boost::describe::mod_public>;
    boost::mp11::mp_for_each<members>([&](auto member) {
        if (!err)
            err = serialize_field(f, x.*member.pointer);
    });
    return err;
}

template <class F, class T> caf::error serialize_optional(F& f, std::optional<T>& x) {
    bool engaged = x.has_value();
    if (auto err = f(engaged))
        return err;
    if constexpr (F::writes_state) {
        if (!engaged) {
            x.reset();
            return {};
        }
        x.emplace();
    }
    return engaged ? serialize_field(f, *x) : caf::error{};
}

template <class F, class... Ts> caf::error serialize_variant(F& f, std::variant<Ts...>& x) {
    static_assert(sizeof...(Ts) < 256, "the alternative travels as one byte");
    auto index = static_cast<std::uint8_t>(x.index());
    if (auto err = f(index))
        return err;
    if (index >= sizeof...(Ts))
        return caf::make_error(caf::sec::invalid_argument, "no such alternative");
    return boost::mp11::mp_with_index<sizeof...(Ts)>(index, [&](auto i) -> caf::error {
        if constexpr (F::writes_state)
            x.template emplace<i>();
        return serialize_field(f, std::get<i>(x));
    });
}

// JSON travels as its text.
template <class F, class T> caf::error serialize_json(F& f, T& x) {
    std::string text;
    if constexpr (F::reads_state)
        text = boost::json::serialize(x);
    if (auto err = f(text))
        return err;
    if constexpr (F::writes_state) {
        boost::system::error_code ec;
        auto parsed = boost::json::parse(text, ec);
        if (ec)
            return caf::make_error(caf::sec::invalid_argument, "not JSON: " + ec.message());
        if constexpr (std::is_same_v<T, boost::json::value>) {
            x = std::move(parsed);
        } else if constexpr (std::is_same_v<T, boost::json::object>) {
            if (!parsed.is_object())
                return caf::make_error(caf::sec::invalid_argument, "not a JSON object");
            x = std::move(parsed.get_object());
        } else {
            if (!parsed.is_array())
                return caf::make_error(caf::sec::invalid_argument, "not a JSON array");
            x = std::move(parsed.get_array());
        }
    }
    return {};
}

// Elements are read one at a time: a stated count is never allocated ahead of the elements.
template <class F, class T> caf::error serialize_vector(F& f, std::vector<T>& xs) {
    std::size_t n = xs.size();
    if (auto err = f.begin_sequence(n))
        return err;
    if constexpr (F::writes_state) {
        xs.clear();
        for (std::size_t i = 0; i < n; ++i)
            if (auto err = serialize_field(f, xs.emplace_back()))
                return err;
    } else {
        for (auto& x : xs)
            if (auto err = serialize_field(f, x))
                return err;
    }
    return f.end_sequence();
}

template <class F, class T> caf::error serialize_field(F& f, T& x) {
    if constexpr (is_local<T>)
        return caf::make_error(caf::sec::state_not_serializable, "a process-local handle");
    else if constexpr (described_message<T>)
        return serialize_described(f, x);
    else if constexpr (is<T, std::optional>)
        return serialize_optional(f, x);
    else if constexpr (is<T, std::variant>)
        return serialize_variant(f, x);
    else if constexpr (is_json<T>)
        return serialize_json(f, x);
    else if constexpr (is<T, std::vector>)
        return serialize_vector(f, x);
    else if constexpr (is<T, std::pair>) {
        if (auto err = serialize_field(f, x.first))
            return err;
        return serialize_field(f, x.second);
    } else
        return f(x); // CAF's own: numbers, enums, strings, durations, time points, handles
}

} // namespace detail

// CAF's serializers and deserializers (caf::data_processor); printing goes through to_string.
template <class Inspector, described_message T>
    requires(!std::is_void_v<typename Inspector::result_type>)
typename Inspector::result_type inspect(Inspector& f, T& x) {
    return detail::serialize_described(f, x);
}

template <described_message T> std::string to_string(const T& x) {
    std::string out;
    detail::print_described(out, x);
    return out;
}

} // namespace gate::actors
