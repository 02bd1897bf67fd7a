#include "shim/app.hpp"

int main(int argc, char** argv) {
    return gate::shim::run_shim(argc, argv);
}
