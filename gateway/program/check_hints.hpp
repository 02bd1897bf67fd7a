// What `gate check` tells an operator about a failure (docs/operations.md, "gate check"): a
// hint to act on for each kind of thing it tries, and URLs and messages shown without the
// credentials a URL may carry. Plain text in, text out: unit-tested without a network.
#pragma once

#include "config/model.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace gate::gateway::program::check {

// `url` with its userinfo (user:password@) shown as "***@"; any other text as it is.
std::string without_userinfo(std::string_view url);
// `text` with the userinfo of every URL in it shown as "***@" (a failure quoting its URL).
std::string scrubbed(std::string_view text);

// How a try failed, as far as a hint needs to know.
enum class failure {
    network,   // no connection: refused, unresolvable, reset, TLS
    timeout,   // no answer within the bound
    status,    // an HTTP status that is not the one wanted
    content,   // an answer, but not the document or protocol expected
    credential // gate could not get its own credential (a token endpoint)
};

// Failures that mean the same for every kind of peer (refused, unresolvable, TLS, a timeout);
// "" when `message` shows none of them. `target`: the URL tried, `what`: "the upstream".
std::string network_hint(std::string_view message, std::string_view target, std::string_view what,
                         std::chrono::milliseconds timeout);

// An upstream's handshake.
std::string upstream_hint(const config::upstream& u, std::string_view target, failure f, int status,
                          std::string_view message, std::chrono::milliseconds timeout);
// The authentication schemes a WWW-Authenticate value names ("Bearer", "Basic", ...), in
// order: each challenge's first word, parameters and quoted strings skipped.
std::vector<std::string> challenge_schemes(std::string_view challenge);

// What `gate check` makes of the handshake of an upstream that takes each caller's credential
// (passthrough, token-exchange), sent without one since a check has no caller: a 401 or 403
// asking for a Bearer token (or naming no scheme) is reachable and as expected; a handshake
// answered without any credential is reachable too, and said; a challenge for other schemes
// only (a caller's Bearer token would never do) and any other answer are down.
struct per_caller_verdict {
    bool up = false;
    std::string detail;    // what answered, or what failed
    std::string hint;      // when down
    std::string unchecked; // what no try without a caller's token can tell
};
// What a try without a caller's token leaves unchecked at such an upstream.
std::string per_caller_unchecked(const config::upstream& u);
// `identity`: who answered a handshake ("" when it answered none).
per_caller_verdict judge_per_caller(const config::upstream& u, std::string_view target, int status,
                                    std::string_view challenge, std::string_view identity,
                                    std::chrono::milliseconds timeout);

// The form of the request `gate check` sends a token-exchange upstream's tokenEndpoint: the
// grant type alone (RFC 8693 section 2.1), with no client credentials and no subject token,
// so nothing can be exchanged and nothing secret is sent (docs/operations.md, gate check).
std::string token_endpoint_probe_form();
// What the token endpoint answered it (`status`, its body): an OAuth error (RFC 6749 section
// 5.2: 400 or 401, a JSON object with `error`) is reachable, except `unsupported_grant_type`
// (it does not exchange tokens); any other answer is down. `unchecked` names what only a
// caller's own request tries: gate's client authentication and the exchange itself.
std::string token_endpoint_unchecked(const config::upstream& u);
per_caller_verdict judge_token_endpoint(const config::upstream& u, std::string_view target,
                                        int status, std::string_view body);

// An issuer's key set (jwksUri).
std::string key_set_hint(std::string_view target, failure f, int status, std::string_view message,
                         std::chrono::milliseconds timeout);
// The shared store: `source` is where its URL came from (server.redisUrl or REDIS_URL).
std::string store_hint(std::string_view target, std::string_view source, failure f,
                       std::string_view message, std::chrono::milliseconds timeout);
// A receiver gate posts batches to: an audit webhook (`otlp` false) or the OTLP collector.
std::string receiver_hint(bool otlp, std::string_view target, failure f, int status,
                          std::string_view message, std::chrono::milliseconds timeout);
// The discovery source.
std::string discovery_hint(const config::discovery& d, failure f, int status,
                           std::string_view message, std::chrono::milliseconds timeout);

} // namespace gate::gateway::program::check
