#include "process/service_manager.hpp"

#include <systemd/sd-daemon.h>

namespace gate::process {

void notify_ready(const std::string& status) {
    sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void notify_reloading() {
    sd_notify(0, "RELOADING=1");
}

void notify_stopping() {
    sd_notify(0, "STOPPING=1");
}

} // namespace gate::process
