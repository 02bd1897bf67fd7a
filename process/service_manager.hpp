// What a service manager is told (systemd's notify protocol, through libsystemd's sd_notify):
// ready once the listener is bound, reloading and ready again around a reload, stopping at a
// drain. Without NOTIFY_SOCKET (not run by systemd with Type=notify) each call does nothing.
#pragma once

#include <string>

namespace gate::process {

void notify_ready(const std::string& status);
void notify_reloading();
void notify_stopping();

} // namespace gate::process
