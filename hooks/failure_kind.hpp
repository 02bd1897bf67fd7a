// What kind of failure an attempt that got no answer met, as one word for its log: the
// attempt's error text (sender.cpp, transport/client/upstream_connection.cpp) names hosts,
// addresses and the operator's limits, which the latest attempt keeps in full on its delivery;
// the log keeps only the kind, so a receiver's history reads at a glance and holds nothing but
// what the kinds below say. Plain C++.
#pragma once

#include "hooks/model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gate::hooks {

// timeout, refused (the connection was refused), connect (another failure to connect), tls,
// dns (the name did not resolve), blocked (the target guard refused every address),
// invalid_url (the stored url fails today's checks), no_answer (the connection ended before an
// answer), other.
std::string_view failure_kind(std::string_view error);

// The kind of an attempt's failure; nullopt when the receiver answered (its status says how).
std::optional<std::string> attempt_failure(const attempt_result& r);

} // namespace gate::hooks
