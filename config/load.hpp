// Parsing and validation of the configuration document. Never resolves secrets.
#pragma once

#include "config/model.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gate::config {

// One validation failure: where (RFC 6901 JSON pointer into the document) and why.
struct error {
    std::string pointer;
    std::string reason;
};

// The errors on one line, "pointer: reason; pointer: reason" (log lines, refusals).
std::string one_line(const std::vector<error>& errors);

struct load_result {
    std::shared_ptr<const document> doc; // null when errors is non-empty
    std::vector<error> errors;           // every error found, in document order
};

// What a document may contain. `enforced` (gate's own loading) also refuses every field this
// build does not enforce yet (config/unsupported.hpp); `specification` accepts the whole
// document the spec defines, for tests of the validation rules themselves.
enum class acceptance { enforced, specification };

// Parses JSON text and validates structure (unknown keys, types, enums) and every
// cross-field rule of the spec.
// `base_dir`: where relative paths in it (definitions.lockFile) are read from (the config
// file's directory; empty: the working directory).
load_result parse(std::string_view json_text, acceptance accept = acceptance::enforced,
                  const std::string& base_dir = {});

// `--config <path>` / GATE_CONFIG: a value starting with '{' (after whitespace) is inline
// JSON, anything else is a path. Read failures are reported as one error with pointer "".
load_result load(std::string_view path_or_inline_json, acceptance accept = acceptance::enforced);

// The JSON Schema (draft 2020-12) of the document, byte-identical to
// config/gate.config.schema.json.
std::string_view schema_text();

} // namespace gate::config
