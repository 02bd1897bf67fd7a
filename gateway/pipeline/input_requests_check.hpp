// A 2026-07-28 upstream's input_required answer passed on to a 2026-07-28 client: each of its
// inputRequests is a request of the upstream to the client, decided as any server-initiated
// request is (docs/security.md): by the policy's rules, then the decision hook asked at
// serverRequest. Without this the answer would carry to the client what the rules refuse on
// every other path.
#pragma once

#include "gateway/pipeline/request_context.hpp"
#include "gateway/pipeline/step.hpp"

#include <boost/asio/awaitable.hpp>

namespace gate::transport {
class hook_asker;
}

namespace gate::transport::pipeline {

// Whether ctx's upstream answer asks the client for input (result.resultType input_required on
// a method the revision lets ask) while something judges such requests: a policy, or `hooks`
// with a hook asked at serverRequest. Reads no more of the answer than a search for its key.
bool judges_input_requests(const request_context& ctx, const hook_asker* hooks);

// Each input request judged in the order the upstream wrote them: the first refused answers
// ctx in the answer's place (server_request_denied, or the hook's refusal), audited as denied;
// `answered` then. A malformed inputRequests is refused as the upstream's fault.
boost::asio::awaitable<verdict> judge_input_requests(request_context& ctx, hook_asker* hooks);

} // namespace gate::transport::pipeline
