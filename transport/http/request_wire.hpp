// A request read on one io thread written back as bytes, for the thread it moves to
// (http_server::join): that server reads it again as it came, with whatever followed it.
#pragma once

#include "transport/http/http_server.hpp"

#include <string>

namespace gate::transport {

// The request line and fields, as read (their order and repeats kept). With `body`, the body
// read too, under a Content-Length of its own: a chunked body comes unchunked, and an
// Expect: 100-continue, already answered, is left out.
std::string request_wire(const http_request& req, bool body);

} // namespace gate::transport
