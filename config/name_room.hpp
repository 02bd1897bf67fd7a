// What a namespace does to the tool names a federation lists: `{namespace}{separator}{name}`.
// Many clients and model APIs accept names of at most 64 characters (the specification allows
// 128) and only letters, digits, `_`, `-` and `.`; a long namespace, or one (or a separator)
// outside those characters, is valid configuration that clients may still trip on, so
// `--validate` and the start warn about it rather than refuse it (docs/configuration.md).
#pragma once

#include "config/model.hpp"

#include <string>
#include <vector>

namespace gate::config {

// One line per upstream whose namespace leaves tool names of common length (32 characters)
// no room under 64, or puts characters outside the specification's set into every name.
std::vector<std::string> name_room_warnings(const document& doc);

} // namespace gate::config
