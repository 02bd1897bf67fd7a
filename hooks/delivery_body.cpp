#include "hooks/delivery_body.hpp"

#include "hooks/signature.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gate::hooks {

std::string delivery_body(const delivery_envelope& e) {
    boost::json::object body{{"id", e.delivery_id},
                             {"event_id", e.event_id},
                             {"type", e.type},
                             {"timestamp", e.time},
                             {"organization", e.organization}};
    boost::system::error_code ec;
    auto data = boost::json::parse(e.data, ec);
    body["data"] = ec ? boost::json::value(boost::json::object{}) : std::move(data);
    return boost::json::serialize(body);
}

std::vector<std::pair<std::string, std::string>>
delivery_headers(const delivery_envelope& e, const std::string& body,
                 const std::optional<std::string>& secret, std::int64_t unix_seconds) {
    std::vector<std::pair<std::string, std::string>> h{
        {"Gate-Delivery", e.delivery_id},
        {"Gate-Event", e.type},
        {"Gate-Timestamp", std::to_string(unix_seconds)}};
    if (secret)
        h.emplace_back("Gate-Signature", "sha256=" + hmac_sha256_hex(*secret, body));
    return h;
}

} // namespace gate::hooks
