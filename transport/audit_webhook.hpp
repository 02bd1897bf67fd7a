// The io side of the audit webhook sink: performs the POSTs the audit actor decides on
// (actors/webhook_batcher) and says how each went. One fresh connection per batch, bounded in
// time; a redirect is a refusal (gate does not send audit events to a host it was not given).
#pragma once

#include "actors/audit.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace gate::transport {

// Statuses that will not change if the batch is sent again are a refusal: everything but
// 2xx (delivered), 408, 429 and 5xx (failed: retried).
webhook_batcher::result classify_webhook_status(unsigned status);

webhook_poster make_webhook_poster(boost::asio::io_context& io,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

} // namespace gate::transport
