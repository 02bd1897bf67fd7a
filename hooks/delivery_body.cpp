#include "hooks/delivery_body.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::hooks {

std::string delivery_body(const delivery_envelope& e) {
    boost::json::object body{{"id", e.event_id},
                             {"type", e.type},
                             {"timestamp", e.time},
                             {"organization", e.organization}};
    boost::system::error_code ec;
    auto data = boost::json::parse(e.data, ec);
    body["data"] = ec ? boost::json::value(boost::json::object{}) : std::move(data);
    return boost::json::serialize(body);
}

} // namespace gate::hooks
