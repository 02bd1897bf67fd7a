// `gate definitions lock` (docs/configuration.md, "Pinned definitions"): the lock file of the
// federation as it stands, from each upstream's tools as gate lists them for itself: one line
// per tool, "<upstream> <tool> sha256:<digest>", sorted, so a change reads as a diff in review.
// An upstream that takes each caller's credential has no list of gate's own: a comment line
// says so and its tools are not locked.
#include "gateway/entry/gateway_impl.hpp"
#include "protocol/tool_definition.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <set>

namespace gate::transport {

namespace {

namespace asio = boost::asio;

asio::awaitable<void> lock_lines(std::shared_ptr<const federation_view> view,
                                 std::function<void(bool, std::string)> done) {
    std::set<std::string> lines;
    std::string notes, failures;
    for (const auto& client : view->clients) {
        const auto& id = client->config().id;
        if (client->per_caller()) {
            notes += "# " + id + ": takes each caller's credential; its tools are not locked\n";
            continue;
        }
        auto listed = co_await client->fetch_list("tools/list", "tools", call_context{});
        if (auto* f = std::get_if<upstream_failure>(&listed)) {
            failures += (failures.empty() ? "" : "; ") + id + ": " + f->message;
            continue;
        }
        for (const auto& t : std::get<boost::json::array>(listed)) {
            const auto* tool = t.if_object();
            const auto* name = tool ? tool->if_contains("name") : nullptr;
            // A name with whitespace could not be read back; MCP's names have none.
            if (!name || !name->is_string() ||
                name->get_string().find_first_of(" \t\r\n") != boost::json::string::npos)
                continue;
            lines.insert(id + " " + std::string(name->get_string()) + " " +
                         protocol::definition_digest(*tool));
        }
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
    asio::co_spawn(impl_->io, lock_lines(impl_->live, std::move(done)), asio::detached);
}

} // namespace gate::transport
