// What gate knows of one upstream's lists (upstream_lists.hpp).
#include "gateway/upstream/upstream_lists.hpp"

namespace gate::gateway {

namespace asio = boost::asio;
namespace json = boost::json;

asio::awaitable<std::variant<json::array, gateway::upstream_failure>>
upstream_lists::fetch_list(std::string_view method, std::string_view key,
                           const gateway::call_context& ctx, std::vector<std::string>* sources) {
    // One admission for the whole list, however many pages the upstream serves it in.
    auto admitted = co_await guards_.admit(ctx.use);
    if (auto* refused = std::get_if<gateway::upstream_failure>(&admitted))
        co_return std::move(*refused);
    co_return co_await requests_.fetch_list(
        method, key, ctx, std::move(std::get<gateway::upstream_guards::ticket>(admitted)), sources);
}

} // namespace gate::gateway
