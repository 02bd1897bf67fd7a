#include "shim/options.hpp"

#include "process/cli_values.hpp"

#include <boost/asio/ip/address.hpp>

namespace gate::shim {

namespace {

bool valid_env_name(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
        return false;
    for (char c : name)
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9')))
            return false;
    return true;
}

// --env-passthrough's comma-separated names into `out`; the error if one is not a name.
std::optional<usage_error> read_env_names(const std::string& v, std::vector<std::string>& out) {
    out.clear();
    std::size_t start = 0;
    while (start <= v.size()) {
        auto comma = v.find(',', start);
        auto name = v.substr(start, comma == std::string::npos ? v.npos : comma - start);
        if (!valid_env_name(name))
            return usage_error{"--env-passthrough takes comma-separated variable names "
                               "([A-Za-z_][A-Za-z0-9_]*), got \"" +
                               name + "\""};
        out.push_back(name);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return std::nullopt;
}

// The server command, what follows the `--` at `dash` (if there is one), into `o`.
std::optional<usage_error> read_command(const std::vector<std::string>& args, std::size_t dash,
                                        options& o) {
    if (dash < args.size())
        o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(dash) + 1, args.end());
    if (o.command.empty() && !o.help && !o.version)
        return usage_error{"no server command: put it after --, for example: gate-stdio -- npx "
                           "-y @modelcontextprotocol/server-everything"};
    if (!o.command.empty() && o.command.front().empty())
        return usage_error{"the server command is empty"};
    return std::nullopt;
}

} // namespace

std::string usage_text() {
    return R"(usage: gate-stdio [options] -- <command> [arguments...]

Serves one stdio MCP server over streamable HTTP: every session runs its own child process.

  --port <port>               port of the MCP endpoint (default 8091; 0 picks a free port)
  --host <address>            bind address (default 127.0.0.1)
  --max-sessions <n>          concurrent sessions, each one child process (default 64)
  --max-body-bytes <n>        request body cap (default 1048576)
  --env-passthrough <names>   comma-separated variables the child may see (default none)
  --dir <path>                working directory of the child (default: the shim's own)
  --bearer-env <name>         variable holding the token callers must present as
                              Authorization: Bearer <token> (required beyond loopback)
  --probe                     start the server once, complete the MCP handshake, and exit
  --log-format text|json      log line format on stderr (default text)
  --log-level <level>         debug, info, warn or error (default info)
  --version                   print the version and exit
  --help                      print this help and exit
)";
}

std::variant<options, usage_error> parse_command_line(const std::vector<std::string>& args) {
    options o;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--")
            break;
        auto value = [&](std::string& out) -> std::optional<usage_error> {
            if (i + 1 >= args.size())
                return usage_error{a + " needs a value"};
            out = args[++i];
            return std::nullopt;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--version") {
            o.version = true;
        } else if (a == "--probe") {
            o.probe = true;
        } else if (a == "--host") {
            if (auto e = value(o.host))
                return *e;
        } else if (a == "--port") {
            if (auto e = value(v))
                return *e;
            if (auto bad = process::parse_port(a, v, o.port))
                return usage_error{*bad};
        } else if (a == "--max-sessions" || a == "--max-body-bytes") {
            if (auto e = value(v))
                return *e;
            std::uint64_t n = 0;
            if (auto bad = process::parse_count(a, v, 1, n))
                return usage_error{*bad};
            (a == "--max-sessions" ? o.max_sessions : o.max_body_bytes) = n;
        } else if (a == "--env-passthrough") {
            if (auto e = value(v))
                return *e;
            if (auto bad = read_env_names(v, o.env_passthrough))
                return *bad;
        } else if (a == "--dir") {
            if (auto e = value(v))
                return *e;
            if (v.empty())
                return usage_error{"--dir needs a path"};
            o.dir = v;
        } else if (a == "--bearer-env") {
            if (auto e = value(v))
                return *e;
            if (!valid_env_name(v))
                return usage_error{"--bearer-env takes a variable name ([A-Za-z_][A-Za-z0-9_]*), "
                                   "got \"" +
                                   v + "\""};
            o.bearer_env = v;
        } else if (a == "--log-format") {
            if (auto e = value(o.log_format))
                return *e;
            if (auto bad = process::check_log_format(o.log_format))
                return usage_error{*bad};
        } else if (a == "--log-level") {
            if (auto e = value(o.log_level))
                return *e;
            if (auto bad = process::check_log_level(o.log_level))
                return usage_error{*bad};
        } else {
            return usage_error{"unknown option \"" + a + "\" (the server command goes after --)"};
        }
    }
    if (auto bad = read_command(args, i, o))
        return *bad;
    return o;
}

bool is_loopback_host(const std::string& host) {
    if (host == "localhost")
        return true;
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(host, ec);
    return !ec && addr.is_loopback();
}

} // namespace gate::shim
