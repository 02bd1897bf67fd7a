// What the simulation changes in a configuration so that nothing leaves the process
// (docs/simulations.md): each upstream at its simulated servers, the audit to the output, the
// simulation's own key behind every trusted issuer, and the tokens of the recorded principals.
#pragma once

#include "config/model.hpp"
#include "protocol/jose/es256_signer.hpp"
#include "simulations/replay/fault_script.hpp"
#include "simulations/replay/recorded_traffic.hpp"
#include "simulations/replay/replay_client.hpp"
#include "simulations/replay/sim_upstream.hpp"

#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

namespace gate::sim {

// A P-256 key of the simulation's own: the recorded principals' tokens are signed with it and
// every trusted issuer's key set is this one key.
protocol::jose::es256_signer simulation_key();

// The document as the simulation runs it; the simulated upstreams it points at are made here
// (one per configured URL) and `issuer` serves the key set and the upstreams' token endpoint.
std::shared_ptr<config::document> simulated(const config::document& configured,
                                            boost::asio::io_context& io,
                                            const std::shared_ptr<recorded_answers>& answers,
                                            const std::shared_ptr<const fault_script>& faults,
                                            std::vector<std::unique_ptr<sim_upstream>>& servers,
                                            sim_upstream& issuer);

// The Bearer token a recorded principal presents: signed by `key`, for the configured resource,
// living an hour of virtual time from now. Empty when the document takes no tokens.
token_minter minter(std::shared_ptr<const config::document> doc,
                    std::shared_ptr<protocol::jose::es256_signer> key);

} // namespace gate::sim
