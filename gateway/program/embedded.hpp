// Embedding gate in another program (the `gate::embedded` library target): start a gateway
// from a configuration document held in memory, reload it with another, stop it. The gateway
// runs on a thread of its own; every call here is safe from any one thread of the host
// program. Logging goes to the program's default spdlog logger. Sample:
// simulations/embedded_sample.cpp; docs/operations.md, "Embedding".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gate::gateway {

struct embedded_options {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0; // 0: a free port (see embedded_gateway::port())
};

class embedded_gateway {
public:
    // Validates the document (JSON text, the same as --config takes) and starts serving it.
    // Throws std::invalid_argument listing every configuration error at its JSON pointer, or
    // std::runtime_error when it cannot start (a secret missing from the environment, a shared
    // store that does not answer, a port in use).
    static std::unique_ptr<embedded_gateway> start(std::string_view config_json,
                                                   embedded_options opt = {});
    ~embedded_gateway(); // stop()

    std::uint16_t port() const;
    // The MCP endpoint, e.g. http://127.0.0.1:40123/mcp.
    std::string url() const;

    // Validates and applies another document, the way SIGHUP does: nullopt when applied,
    // else every reason it was refused (the running document keeps serving).
    std::optional<std::string> reload(std::string_view config_json);

    // Drains requests being answered (up to 10 s) and stops; idempotent.
    void stop();

private:
    struct impl;
    explicit embedded_gateway(std::unique_ptr<impl> i);
    std::unique_ptr<impl> impl_;
};

} // namespace gate::gateway
