// A program that embeds gate (gateway/program/embedded.hpp, the gate::embedded library): it starts
// a gateway in front of one upstream, then applies each line of its standard input as a new
// configuration document, and stops at the end of input.
//
//   embedded_sample <upstream-mcp-url>
//
// Prints `listening <url>` once serving, then per line `reloaded` or `refused: <why>`, and
// `stopped` at the end. tests/js/embedding.test.mjs drives it.
#include "gateway/program/embedded.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: embedded_sample <upstream-mcp-url>\n");
        return 2;
    }
    std::string config = R"({"upstreams":[{"id":"first","url":")" + std::string(argv[1]) +
                         R"(","namespace":"first"}]})";
    std::unique_ptr<gate::gateway::embedded_gateway> gw;
    try {
        gw = gate::gateway::embedded_gateway::start(config);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cannot start: %s\n", e.what());
        return 1;
    }
    std::printf("listening %s\n", gw->url().c_str());
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line);) {
        auto refused = gw->reload(line);
        if (!refused) {
            std::printf("reloaded\n");
        } else {
            for (auto& c : *refused)
                if (c == '\n')
                    c = ' ';
            std::printf("refused: %s\n", refused->c_str());
        }
        std::fflush(stdout);
    }
    gw->stop();
    std::printf("stopped\n");
    return 0;
}
