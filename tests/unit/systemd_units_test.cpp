// The systemd units shipped in config/systemd pass `systemd-analyze verify` (Debian's systemd),
// with their ExecStart pointed at the binaries just built (verify checks that it exists) and
// the gate-stdio template verified as an instance; verify must say nothing at all (it
// only warns of an unknown key). A unit with such a mistake fails the same check.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void replace(std::string& text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
}

struct unit_dir {
    fs::path dir = fs::temp_directory_path() / ("gate-units-" + std::to_string(getpid()));
    unit_dir() { fs::create_directories(dir); }
    ~unit_dir() { fs::remove_all(dir); }
    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return dir / name;
    }
};

// What `systemd-analyze verify` says of the unit (a warning, like an unknown key, is said
// with exit status 0: nothing said is the pass).
struct verdict {
    int status = -1;
    std::string said;
};
verdict verify(const fs::path& unit) {
    verdict v;
    auto command = "systemd-analyze verify '" + unit.string() + "' 2>&1";
    FILE* out = popen(command.c_str(), "r");
    if (!out)
        return v;
    char buf[512];
    while (auto n = std::fread(buf, 1, sizeof buf, out))
        v.said.append(buf, n);
    int status = pclose(out);
    v.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return v;
}
void expect_clean(const verdict& v) {
    EXPECT_EQ(v.status, 0) << v.said;
    EXPECT_EQ(v.said, "");
}

const fs::path units = fs::path(GATE_SOURCE_DIR) / "config" / "systemd";

} // namespace

TEST(SystemdUnits, EveryShippedUnitVerifies) {
    unit_dir d;
    auto gate = read(units / "gate.service");
    replace(gate, "ExecStart=/usr/local/bin/gate ", "ExecStart=" + std::string(GATE_BIN) + " ");
    expect_clean(verify(d.write("gate.service", gate)));
    auto hooks = read(units / "gate-hooks.service");
    replace(hooks, "ExecStart=/usr/local/bin/gate-hooks",
            "ExecStart=" + std::string(GATE_HOOKS_BIN));
    expect_clean(verify(d.write("gate-hooks.service", hooks)));
    auto shim = read(units / "gate-stdio@.service");
    replace(shim, "ExecStart=/usr/local/bin/gate-stdio",
            "ExecStart=" + std::string(GATE_STDIO_BIN));
    expect_clean(verify(d.write("gate-stdio@demo.service", shim)));
}

TEST(SystemdUnits, AUnitWithAMistakeFailsTheSameCheck) {
    unit_dir d;
    auto gate = read(units / "gate.service");
    replace(gate, "ExecStart=/usr/local/bin/gate ", "ExecStart=" + std::string(GATE_BIN) + " ");
    replace(gate, "NoNewPrivileges=yes", "NoNewPrivilege=yes");
    auto v = verify(d.write("gate.service", gate));
    EXPECT_NE(v.said.find("Unknown key 'NoNewPrivilege'"), std::string::npos) << v.said;
}
