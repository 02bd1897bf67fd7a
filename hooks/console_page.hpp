// The console page gate-hooks serves at / (docs/webhooks.md, "Console"): webhooks with their
// switch, a test button and their delivery history, and the dead-letter queue with a retry
// per webhook. One static HTML document; it calls the same API with the token the user
// enters (kept in the tab's sessionStorage only).
#pragma once

#include <string_view>

namespace gate::hooks {

std::string_view console_page();

} // namespace gate::hooks
