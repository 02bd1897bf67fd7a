// The io side of the sinks that deliver in batches (audit webhooks, trace export): performs
// the POSTs their actors decide on (actors/sinks/batch_delivery) and says how each went. One fresh
// connection per batch, bounded in time; a redirect is a refusal (gate does not send audit
// events or spans to a host it was not given).
#pragma once

#include "actors/sinks/batch_delivery.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace gate::gateway {

// Statuses that will not change if the batch is sent again are a refusal: everything but
// 2xx (delivered), 408, 429 and 5xx (failed: retried).
actors::batcher::result classify_batch_status(unsigned status);

actors::batch_poster
make_batch_poster(boost::asio::io_context& io,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10));

} // namespace gate::gateway
