// What gate's fetches of an upstream's tools lists last said of each tool, for the decisions
// made on a call of it: whether only an App's view may call it (`_meta.ui.visibility` without
// "model", protocol/tool_visibility.hpp; a client that runs no views is refused it, as its
// lists leave it out), and its behaviour hints, which policy entries may test
// (protocol/tool_hints.hpp).
#pragma once

#include "gateway/upstream/definition_watch.hpp"
#include "protocol/tool_hints.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gate::gateway {

class listed_tools {
public:
    // Each tool of a fetched list, as that list says. Lists differ per client profile (a
    // server may list its App's tools only to hosts that render views), so a tool another
    // list left out keeps what an earlier list said of it.
    void learn(const boost::json::array& tools);
    // Why each tool is withheld, by name (withheld() of each).
    using reasons = std::unordered_map<std::string, std::string>;
    const reasons& withheld_all() const { return withheld_; }
    // The judgement withhold_changed made of a list on a scratch copy (`judged`), while this
    // one went on serving calls: whether each tool that list named (`named`) is withheld now,
    // and whether the pin blocks. A tool it did not name keeps its judgement: lists differ
    // per client profile (a list for a client without views leaves App tools out), and a
    // tool one list withheld must not become callable because another left it out.
    void take_judgement(const listed_tools& judged, const std::vector<std::string>& named);
    bool app_only(const std::string& tool) const;
    // The tool's hints as last listed; nullopt for one no list showed.
    std::optional<protocol::tool_hints> hints(const std::string& tool) const;
    // Whether any tools list was learnt yet.
    bool listed() const { return listed_; }
    // The tools last listed whose name `match` accepts (the names a short alias may stand for).
    template <class Match> std::vector<std::string> named(Match match) const {
        std::vector<std::string> out;
        for (const auto& [name, facts] : tools_)
            if (match(name))
                out.push_back(name);
        return out;
    }

    // Pinned definitions: takes out of a fetched list (and its item texts, when given) each
    // tool whose definition changed under a `block` pin, remembering why until the next list;
    // under `warn` a change is only told (definition_watch). The pins a fleet shares are
    // agreed on first (one bounded round trip to its store, when it has one).
    boost::asio::awaitable<void> withhold_changed(boost::json::array& tools,
                                                  std::vector<std::string>* sources,
                                                  definition_watch& watch,
                                                  const config::upstream& cfg);
    // Why `tool` is withheld (its pinned and listed digests), or nullptr.
    const std::string* withheld(const std::string& tool) const;
    // The tools withheld now whose own name `match` accepts (those a short alias may stand
    // for: lists leave them out, so the router's lists cannot reverse one).
    template <class Match> std::vector<std::string> withheld_where(Match match) const {
        std::vector<std::string> out;
        for (const auto& [name, why] : withheld_)
            if (match(name))
                out.push_back(name);
        return out;
    }
    // Whether the upstream's pin blocks changed tools.
    bool blocks() const { return blocks_; }
    // After a reload (pins and lock file may have changed): what the lists said is judged
    // again at the next list, which a call that needs it fetches first.
    void judge_again() {
        listed_ = false;
        withheld_.clear();
    }

private:
    static std::string why_withheld(const policy::definition_change& change);
    struct facts {
        bool app_only = false;
        protocol::tool_hints hints;
    };
    // Bounded: an upstream listing ever new names keeps what it knows and learns no more.
    static constexpr std::size_t max_tools = 10000;
    std::unordered_map<std::string, facts> tools_;
    bool listed_ = false;
    reasons withheld_;
    bool blocks_ = false;
};

} // namespace gate::gateway
