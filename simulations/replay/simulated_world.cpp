#include "simulations/replay/simulated_world.hpp"

#include "simulations/replay/virtual_time.hpp"

#include <boost/json.hpp>
#include <cstdlib>
#include <openssl/evp.h>
#include <openssl/pem.h>

namespace gate::sim {

namespace asio = boost::asio;
namespace json = boost::json;

// A P-256 key of the simulation's own: the recorded principals' tokens are signed with it and
// every trusted issuer's key set is this one key.
protocol::jose::es256_signer simulation_key() {
    EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    EVP_PKEY_free(key);
    auto signer = protocol::jose::es256_signer::from_pem(pem);
    return std::move(std::get<protocol::jose::es256_signer>(signer));
}

// The document as the simulation runs it: upstreams at their simulated servers, audit to the
// output, nothing that reaches outside the process (docs/simulations.md, what changes).
std::shared_ptr<config::document> simulated(const config::document& configured,
                                            asio::io_context& io,
                                            const std::shared_ptr<recorded_answers>& answers,
                                            const std::shared_ptr<const fault_script>& faults,
                                            std::vector<std::unique_ptr<sim_upstream>>& servers,
                                            sim_upstream& issuer) {
    auto doc = std::make_shared<config::document>(configured);
    for (auto& u : doc->upstreams) {
        int replica = 0;
        for (auto& url : u.urls) {
            servers.push_back(std::make_unique<sim_upstream>(io, u.id, ++replica, answers, faults));
            url = servers.back()->url();
        }
        if (!u.auth.token_endpoint.empty())
            u.auth.token_endpoint = issuer.base() + "/token";
        if (!u.auth.secret_ref.empty() && !std::getenv(u.auth.secret_ref.c_str()))
            setenv(u.auth.secret_ref.c_str(), "replayed", 0);
        if (u.auth.client_auth_ && !u.auth.client_auth_->secret_ref.empty() &&
            !std::getenv(u.auth.client_auth_->secret_ref.c_str()))
            setenv(u.auth.client_auth_->secret_ref.c_str(), "replayed", 0);
    }
    doc->audit = config::audit{{config::audit_sink{"stdout", "", {}}}};
    doc->tracing.reset();
    doc->discovery.reset();
    doc->server.redis_url.reset();
    doc->auth.ema.reset();
    for (auto& i : doc->auth.issuers)
        i.jwks_uri = issuer.base() + "/jwks";
    return doc;
}

// The Bearer token a recorded principal presents: signed by the simulation's key, for the
// configured resource, living an hour of virtual time from now.
token_minter minter(std::shared_ptr<const config::document> doc,
                    std::shared_ptr<protocol::jose::es256_signer> key) {
    if (!doc->auth.required)
        return {};
    return [doc, key](const protocol::recorded_principal& p) {
        auto now =
            std::chrono::duration_cast<std::chrono::seconds>(virtual_wall().time_since_epoch())
                .count();
        json::object claims = p.claims;
        claims["iss"] = p.iss;
        claims["sub"] = p.sub;
        claims["aud"] = doc->auth.resource.value_or("");
        claims["iat"] = now;
        claims["exp"] = now + 3600;
        std::string groups_claim = "groups";
        for (const auto& i : doc->auth.issuers)
            if (i.issuer == p.iss && i.groups_claim)
                groups_claim = *i.groups_claim;
        json::array groups;
        for (const auto& g : p.groups)
            groups.emplace_back(g);
        claims[groups_claim] = std::move(groups);
        return key->sign(json::object{{"typ", "at+jwt"}}, claims);
    };
}

} // namespace gate::sim
