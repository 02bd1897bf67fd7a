// gate-hooks' HTTP API (docs/webhooks.md; described in docs/webhooks-openapi.json): webhooks,
// events, delivery history, the dead-letter queue, /health, /metrics and the console page.
// Every route but /health, /metrics and the page needs `Authorization: Bearer <token>`; the
// token names the organization, and nothing of another organization is ever visible (its
// ids answer 404 like ids that do not exist).
#pragma once

#include "hooks/dispatcher.hpp"
#include "hooks/hooks_metrics.hpp"
#include "hooks/routes.hpp"
#include "hooks/settings.hpp"
#include "transport/http/http_server.hpp"

#include <caf/actor.hpp>
#include <variant>

namespace gate::hooks {

// GET /stats counts the deliveries whose latest attempt ended within this window.
inline constexpr std::chrono::minutes stats_window{60};

class api final : public transport::http_handler {
public:
    api(const settings& s, caf::actor store, dispatcher& worker, hooks_metrics& metrics);

    std::optional<transport::http_reply> admit(const transport::http_request& req,
                                               time_point start) override;
    boost::asio::awaitable<std::optional<transport::http_reply>>
    respond(transport::http_request& req, boost::beast::tcp_stream& stream,
            const boost::asio::ip::address& peer, time_point start) override;

private:
    // The organization of the request's bearer token, if it carries a known one.
    std::optional<std::string> organization(const transport::http_request& req) const;
    boost::asio::awaitable<transport::http_reply>
    route(transport::http_request& req, const route_match& m, const std::string& org);
    // The organization's webhook `id`, or the answer that ends the request: 404 for another
    // organization's as for an id nobody holds (the store looks it up within `org` alone), 503
    // when the store does not answer.
    boost::asio::awaitable<std::variant<webhook, transport::http_reply>>
    owned_webhook(const std::string& org, const std::string& id);
    boost::asio::awaitable<transport::http_reply>
    create_webhook(transport::http_request& req, const std::string& org, clock_time now);
    boost::asio::awaitable<transport::http_reply> update_webhook(transport::http_request& req,
                                                                 const std::string& org,
                                                                 const std::string& id,
                                                                 clock_time now);
    // A delivery of a test event to the webhook, now, outside the queue.
    boost::asio::awaitable<transport::http_reply> test_webhook(const std::string& org,
                                                               const std::string& id);
    boost::asio::awaitable<transport::http_reply> webhook_deliveries(const std::string& org,
                                                                     const std::string& id);
    // The webhook's latest attempts across its deliveries, or one delivery's every kept one.
    boost::asio::awaitable<transport::http_reply> webhook_attempts(const std::string& org,
                                                                   const std::string& id);
    boost::asio::awaitable<transport::http_reply> delivery_attempts(const std::string& org,
                                                                    const std::string& id);
    boost::asio::awaitable<transport::http_reply> dead_letter_stats(const std::string& org,
                                                                    clock_time now);
    // The organization at a glance: its queue, dead letters and the last hour's deliveries.
    boost::asio::awaitable<transport::http_reply> stats(const std::string& org, clock_time now);
    boost::asio::awaitable<transport::http_reply> ingest(transport::http_request& req,
                                                         const std::string& org, clock_time now);
    boost::asio::awaitable<transport::http_reply> list_dead_letters(const std::string& target,
                                                                    const std::string& org);

    const settings& settings_;
    caf::actor store_;
    dispatcher& worker_;
    hooks_metrics& metrics_;
};

} // namespace gate::hooks
