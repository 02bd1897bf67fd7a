// The definitions section (pinned tool definitions) and its lock file (config/lock_format: one
// line per tool, "<upstream id> <tool name> sha256:<64 hex>", comments ignored). The file is
// read with the document, so a reload reads it again; a line that is not one is refused naming
// its number, and nothing of the file is used.
#include "config/lock_format.hpp"
#include "config/parse_sections.hpp"

#include <filesystem>
#include <fstream>

namespace gate::config::detail {

namespace {

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
        auto read = read_lock_line(line);
        if (std::holds_alternative<lock_comment>(read))
            continue;
        auto where = *out.lock_file + " line " + std::to_string(n) + ": ";
        if (auto* why = std::get_if<std::string>(&read)) {
            o.fail("lockFile", where + *why);
            out.lock.clear();
            return;
        }
        auto& e = std::get<lock_entry>(read);
        auto [it, fresh] = out.lock[e.upstream].emplace(e.tool, e.digest);
        if (!fresh && it->second != e.digest) {
            o.fail("lockFile", where + "tool " + detail::quoted(e.tool) + " of " +
                                   detail::quoted(e.upstream) +
                                   " is locked twice with two digests");
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
