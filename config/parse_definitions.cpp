// The definitions section (pinned tool definitions) and its lock file: one line per tool,
// "<upstream id> <tool name> sha256:<64 hex>", blank lines and lines starting with '#'
// ignored. The file is read with the document, so a reload reads it again; a line that is not
// one is refused naming its number, and nothing of the file is used.
#include "config/parse_sections.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gate::config::detail {

namespace {

bool is_digest(std::string_view d) {
    if (d.size() != 7 + 64 || !d.starts_with("sha256:"))
        return false;
    for (char c : d.substr(7))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

// Why line `text` is not a lock entry, or "".
std::string entry_problem(const std::vector<std::string>& fields) {
    if (fields.size() != 3)
        return "expected \"<upstream> <tool> sha256:<64 hex digits>\", got " +
               std::to_string(fields.size()) + " field" + (fields.size() == 1 ? "" : "s");
    if (!is_digest(fields[2]))
        return "the digest must be \"sha256:\" and 64 lower-case hex digits";
    return {};
}

void read_lock(const object_view& o, definitions& out, const std::string& base_dir) {
    std::filesystem::path path(*out.lock_file);
    if (path.is_relative() && !base_dir.empty())
        path = std::filesystem::path(base_dir) / path;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        o.fail("lockFile",
               "cannot read " + detail::quoted(path.string()) +
                   " (a relative path is read from the configuration file's directory)");
        return;
    }
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::istringstream words(line);
        std::vector<std::string> fields;
        for (std::string w; words >> w;)
            fields.push_back(w);
        if (fields.empty() || fields.front().starts_with('#'))
            continue;
        auto where = *out.lock_file + " line " + std::to_string(n) + ": ";
        if (auto why = entry_problem(fields); !why.empty()) {
            o.fail("lockFile", where + why);
            out.lock.clear();
            return;
        }
        auto [it, fresh] = out.lock[fields[0]].emplace(fields[1], fields[2]);
        if (!fresh && it->second != fields[2]) {
            o.fail("lockFile", where + "tool " + detail::quoted(fields[1]) + " of " +
                                   detail::quoted(fields[0]) + " is locked twice with two digests");
            out.lock.clear();
            return;
        }
    }
}

} // namespace

void parse_definitions(const object_view& root, definitions& out, const std::string& base_dir) {
    const auto* v = root.find("definitions");
    if (v == nullptr)
        return;
    object_view o(*v, root.pointer_of("definitions"), root.errors(), {"pin", "lockFile"});
    if (!o.ok())
        return;
    out.pin = o.one_of("pin", {"off", "warn", "block"}).value_or("off");
    out.lock_file = o.string("lockFile");
    if (out.lock_file)
        read_lock(o, out, base_dir);
}

} // namespace gate::config::detail
