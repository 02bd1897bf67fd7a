#include "gateway/program/app.hpp"

int main(int argc, char** argv) {
    return gate::run_gate({argv + 1, argv + argc});
}
