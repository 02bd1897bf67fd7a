// `ui://` resources (MCP Apps) of a federation: two upstreams running the same App serve the
// same `ui://get-time/mcp-app.html`, so gate gives each upstream's its own name, the way it
// names tools: `ui://{namespace}{separator}{rest}` (`ui://basic__get-time/mcp-app.html`).
// Namespaces never contain the separator, so the URI names its upstream, and a read or a
// subscription routes by the URI itself, listed or not. Passthrough rewrites nothing, and no
// other scheme is touched (docs/apps.md).
#pragma once

#include "protocol/list_kind.hpp"
#include "protocol/name_codec.hpp"

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gate::protocol {

inline constexpr std::string_view ui_scheme = "ui://";

// The URI a client sees for upstream `upstream`'s `uri`: rewritten when it is a ui:// URI in
// a federation, as it is otherwise.
std::string client_ui_uri(const name_codec& codec, std::size_t upstream, std::string_view uri);

struct upstream_ui_uri {
    std::size_t upstream;
    std::string uri; // as the upstream wrote it
};
// The upstream and its own URI for a ui:// URI gate gave a client; nullopt for any other URI
// (another scheme, passthrough, or no namespace owns it).
std::optional<upstream_ui_uri> upstream_ui(const name_codec& codec, std::string_view uri);

// Rewrites the ui:// URIs in one item of a list of `kind` from `upstream`: a tool's
// `_meta.ui.resourceUri` and `_meta["ui/resourceUri"]`, a resource's `uri`, a template's
// `uriTemplate`. Whether anything changed.
bool rewrite_ui_uris(list_kind kind, const name_codec& codec, std::size_t upstream,
                     boost::json::object& item);

// In a resources/read result, each content whose `uri` is `upstream_uri` gets `client_uri`.
// Whether anything changed.
bool restore_read_uris(boost::json::object& response, std::string_view upstream_uri,
                       std::string_view client_uri);

} // namespace gate::protocol
