// A tool's definition as a client and a model see it (name, title, description, inputSchema,
// outputSchema, annotations), reduced to one digest: pinned definitions compare it with the
// one first seen or written in the lock file (docs/configuration.md, "Pinned definitions").
// Canonical: object members sorted by name at every depth, so an upstream that reorders its
// schema's members has not changed it; any other difference, whitespace aside, changes it.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace gate::protocol {

// "sha256:" and 64 lower-case hex digits.
std::string definition_digest(const boost::json::object& tool);

// `v` written with every object's members sorted by name (compact).
std::string canonical_json(const boost::json::value& v);

} // namespace gate::protocol
