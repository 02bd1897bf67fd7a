// gate-stdio as a program: command line, logging, signals, the io thread.
#pragma once

namespace gate::shim {

int run_shim(int argc, char** argv);

} // namespace gate::shim
