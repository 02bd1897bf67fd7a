// `gate definitions lock` (docs/configuration.md, "Pinned definitions"): the lock file of the
// federation as it stands, from each upstream's tools as gate lists them for itself: one line
// per tool, "<upstream> <tool> sha256:<digest>" (config/lock_format), sorted, so a change reads
// as a diff in review. An upstream that takes each caller's credential has no list of gate's
// own: a comment line says so and its tools are not locked. A tool whose name the format
// cannot hold, and a tool the upstream shows differently to clients of other capabilities,
// are said in comment lines.
#include "config/lock_format.hpp"
#include "gateway/program/gateway_components.hpp"
#include "protocol/client_profile.hpp"
#include "protocol/param_headers.hpp"
#include "protocol/tool_definition.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <map>
#include <set>

namespace gate::gateway::program {

namespace {

namespace asio = boost::asio;

// Per tool name, the digest of each definition the upstream lists, and the first client
// profile (protocol/client_profile) listed it.
using definitions_seen = std::map<std::string, std::map<std::string, protocol::client_profile>>;

// The tools one upstream lists to each profile. An upstream may show a tool only to clients of
// some capabilities, or show it differently: gate's own (full) profile alone would lock one of
// the definitions clients are shown.
asio::awaitable<std::variant<definitions_seen, upstream_failure>>
lock_definitions_of(upstream_client& client) {
    definitions_seen seen;
    // The full profile first: its definition is the one locked (gate's own lists pin with it).
    for (std::size_t n = 0; n < protocol::profile_count; ++n) {
        call_context ctx;
        ctx.profile = static_cast<protocol::client_profile>(protocol::full_profile - n);
        auto listed = co_await client.lists().fetch_list("tools/list", "tools", ctx);
        if (auto* f = std::get_if<upstream_failure>(&listed))
            co_return *f;
        for (const auto& t : std::get<boost::json::array>(listed)) {
            const auto* tool = t.if_object();
            const auto* name = tool ? tool->if_contains("name") : nullptr;
            if (name && name->is_string())
                seen[std::string(name->get_string())].try_emplace(
                    protocol::definition_digest(*tool), ctx.profile);
        }
    }
    co_return seen;
}

// A client of profile `p` in words: what it declares.
std::string lock_profile_words(protocol::client_profile p) {
    std::string out;
    auto add = [&](protocol::client_profile bit, const char* what) {
        if (p & bit)
            out += (out.empty() ? "" : ", ") + std::string(what);
    };
    add(protocol::profile_bit::sampling, "sampling");
    add(protocol::profile_bit::elicitation_form, "form elicitation");
    add(protocol::profile_bit::elicitation_url, "URL elicitation");
    add(protocol::profile_bit::roots, "roots");
    add(protocol::profile_bit::ui, "MCP Apps");
    return out.empty() ? "none of the capabilities gate bridges" : out;
}

// The lines of one upstream's tools; comment lines in `notes`.
void lock_lines_of(const std::string& id, const definitions_seen& seen,
                   std::set<std::string>& lines, std::string& notes) {
    for (const auto& [name, digests] : seen) {
        // The definition listed first (profiles are listed from the fullest down): the full
        // profile's, where that profile is shown the tool.
        auto locked = std::max_element(digests.begin(), digests.end(),
                                       [](auto& a, auto& b) { return a.second < b.second; });
        config::lock_entry e{id, name, locked->first};
        if (!config::lockable(e)) {
            // A line that did not read back would make the whole file unreadable.
            notes += "# " + id + ": a tool named " + protocol::printable(name, 80) +
                     " cannot be locked (whitespace in its name); under pin: block it is "
                     "withheld\n";
            continue;
        }
        lines.insert(config::lock_line(e));
        for (const auto& [other, profile] : digests)
            if (other != locked->first)
                notes += "# " + id + ": tool " + name +
                         " is shown differently to some clients, one declaring " +
                         lock_profile_words(profile) + " (" + other +
                         "); one definition is locked: such clients find it changed, and "
                         "withheld under pin: block\n";
    }
}

asio::awaitable<void> lock_lines(std::shared_ptr<const federation_view> view,
                                 std::function<void(bool, std::string)> done) {
    std::set<std::string> lines;
    std::string notes, failures;
    for (std::size_t i = 0; i < view->size(); ++i) {
        const auto& client = view->client_at(i); // the first io thread's: made with the view
        const auto& id = client->config().id;
        if (client->per_caller()) {
            notes += "# " + id + ": takes each caller's credential; its tools are not locked\n";
            continue;
        }
        auto seen = co_await lock_definitions_of(*client);
        if (auto* f = std::get_if<upstream_failure>(&seen)) {
            failures += (failures.empty() ? "" : "; ") + id + ": " + f->message;
            continue;
        }
        lock_lines_of(id, std::get<definitions_seen>(seen), lines, notes);
    }
    if (!failures.empty()) {
        done(false, "cannot list the tools of " + failures);
        co_return;
    }
    std::string text = "# gate definitions lock: <upstream> <tool> <digest of its definition>\n";
    text += notes;
    for (const auto& l : lines)
        text += l + "\n";
    done(true, std::move(text));
}

} // namespace

void gateway::definitions_lock(std::function<void(bool ok, std::string text)> done) {
    asio::co_spawn(components_->io, lock_lines(components_->live.current_view(), std::move(done)),
                   asio::detached);
}

} // namespace gate::gateway::program
