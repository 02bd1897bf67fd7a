#include "gateway/program/app.hpp"

int main(int argc, char** argv) {
    return gate::gateway::program::run_gate({argv + 1, argv + argc});
}
