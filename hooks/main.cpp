#include "hooks/app.hpp"

int main(int argc, char** argv) {
    return gate::hooks::run_hooks(argc, argv);
}
