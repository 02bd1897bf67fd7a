// JSON text for bodies people read (/health): like Boost.JSON's serializer, but a decimal
// number is written the shortest way that reads back as the same double (8.4, not
// 8.4000000000000004E0, which Boost.JSON 1.81 writes for every double).
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace gate::protocol {

std::string json_text(const boost::json::value& v);

} // namespace gate::protocol
