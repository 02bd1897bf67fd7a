// A small stdio MCP server for the shim's tests: starts in milliseconds (1,000 sessions in a
// test), reports its pid, process group, environment and working directory, keeps state
// per process, and can misbehave on request.
//
//   stdio_mcp_server [--ignore-term] [--exit-at-once] [--noise]
//
//   --ignore-term   ignore SIGTERM and the end of stdin (only SIGKILL ends it)
//   --exit-at-once  exit with status 3 before reading anything
//   --noise         write a line that is not JSON to stdout first
//
// Tools: whoami {pid, pgid}, count (a per-process counter), env, cwd, grandchild (forks a
// process that sleeps in the same group; returns its pid), crash (exits with status 7),
// ask (sends sampling/createMessage to the client and answers with the client's reply),
// flood {count, bytes} (writes `count` log notifications of about `bytes` each, then answers),
// shout {count, bytes} (writes `count` stderr lines of `bytes` each, then answers),
// babble {count} (writes `count` stdout lines that are not JSON-RPC, each with control
// characters: odd ones not JSON, even ones JSON with a raw CR as whitespace; then answers).
#include <boost/json.hpp>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <string>
#include <unistd.h>

extern char** environ;

namespace json = boost::json;

namespace {

void send(const json::value& v) {
    std::cout << json::serialize(v) << '\n' << std::flush;
}

json::object text_result(const json::value& id, const std::string& text) {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"result", {{"content", json::array{{{"type", "text"}, {"text", text}}}}}}};
}

json::array tool_list() {
    json::array tools;
    for (auto name : {"whoami", "count", "env", "cwd", "grandchild", "crash", "ask", "flood",
                      "shout", "babble"})
        tools.push_back({{"name", name},
                         {"inputSchema", {{"type", "object"}, {"properties", json::object{}}}}});
    return tools;
}

// A whole-number tool argument, or `fallback`.
std::int64_t argument(const json::object& request, const char* name, std::int64_t fallback) {
    auto* p = request.if_contains("params");
    auto* a = p && p->is_object() ? p->as_object().if_contains("arguments") : nullptr;
    auto* v = a && a->is_object() ? a->as_object().if_contains(name) : nullptr;
    return v && v->is_int64() ? v->as_int64() : fallback;
}

// Log notifications as fast as the pipe takes them; the call's answer comes after.
void flood(std::int64_t count, std::int64_t bytes) {
    auto line = json::serialize(json::object{
                    {"jsonrpc", "2.0"},
                    {"method", "notifications/message"},
                    {"params", {{"level", "info"}, {"data", std::string(bytes, 'f')}}}}) +
                "\n";
    for (std::int64_t i = 0; i < count; ++i)
        std::cout.write(line.data(), static_cast<std::streamsize>(line.size()));
    std::cout.flush();
}

void shout(std::int64_t count, std::int64_t bytes) {
    std::string line(bytes, 's');
    line += '\n';
    for (std::int64_t i = 0; i < count; ++i)
        std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
    std::cerr.flush();
}

// Stdout lines a client must never see, numbered from 1; control characters that would
// recolour, erase or ring a terminal the log is read on.
void babble(std::int64_t count) {
    for (std::int64_t i = 1; i <= count; ++i)
        if (i % 2)
            std::cout << "\x1b[2K\rbabble " << i << "\x07\n";
        else
            std::cout << "{\"babble\":\r" << i << "}\n";
    std::cout.flush();
}

} // namespace

int main(int argc, char** argv) {
    bool ignore_term = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--ignore-term")
            ignore_term = true;
        else if (a == "--exit-at-once")
            return 3;
        else if (a == "--noise")
            std::cout << "this is not JSON" << std::endl;
    }
    if (ignore_term)
        std::signal(SIGTERM, SIG_IGN);
    std::cerr << "stdio test server " << ::getpid() << " ready" << std::endl;

    long counter = 0;
    int asked = 0;
    std::map<std::string, json::value> asking; // our request id -> the client's tools/call id
    std::string line;
    while (std::getline(std::cin, line)) {
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        if (ec || !v.is_object())
            continue;
        auto& m = v.as_object();
        auto* method = m.if_contains("method");
        auto* id = m.if_contains("id");
        if (!method) {
            // The client's answer to our sampling request.
            if (!id)
                continue;
            auto key = json::serialize(*id);
            auto it = asking.find(key);
            if (it == asking.end())
                continue;
            std::string text = "no text";
            if (auto* r = m.if_contains("result"); r && r->is_object())
                if (auto* c = r->as_object().if_contains("content"); c && c->is_object())
                    if (auto* t = c->as_object().if_contains("text"); t && t->is_string())
                        text = t->as_string();
            send(text_result(it->second, "client said: " + text));
            asking.erase(it);
            continue;
        }
        std::string name = method->as_string().c_str();
        if (!id)
            continue; // notifications
        if (name == "initialize") {
            std::string version = "2025-11-25";
            if (auto* p = m.if_contains("params"); p && p->is_object())
                if (auto* pv = p->as_object().if_contains("protocolVersion"); pv && pv->is_string())
                    version = pv->as_string();
            send(json::object{{"jsonrpc", "2.0"},
                              {"id", *id},
                              {"result",
                               {{"protocolVersion", version},
                                {"capabilities", {{"tools", json::object{}}}},
                                {"serverInfo", {{"name", "stdio-test"}, {"version", "1.0.0"}}}}}});
        } else if (name == "ping") {
            send(json::object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", json::object{}}});
        } else if (name == "tools/list") {
            send(json::object{
                {"jsonrpc", "2.0"}, {"id", *id}, {"result", {{"tools", tool_list()}}}});
        } else if (name == "tools/call") {
            std::string tool;
            if (auto* p = m.if_contains("params"); p && p->is_object())
                if (auto* n = p->as_object().if_contains("name"); n && n->is_string())
                    tool = n->as_string();
            if (tool == "whoami") {
                send(text_result(*id, json::serialize(json::object{{"pid", ::getpid()},
                                                                   {"pgid", ::getpgrp()}})));
            } else if (tool == "count") {
                send(text_result(*id, std::to_string(++counter)));
            } else if (tool == "env") {
                json::object env;
                for (char** e = environ; *e; ++e) {
                    std::string kv = *e;
                    auto eq = kv.find('=');
                    env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
                }
                send(text_result(*id, json::serialize(env)));
            } else if (tool == "cwd") {
                char buf[4096];
                send(text_result(*id, ::getcwd(buf, sizeof buf) ? buf : "?"));
            } else if (tool == "grandchild") {
                // The answer waits until the grandchild has let go of every descriptor but
                // its three: freopen opens the new file before it replaces the old, so for a
                // moment it holds a fourth, which a reader of /proc could see.
                int ready[2];
                if (::pipe2(ready, O_CLOEXEC) != 0)
                    std::_Exit(1);
                pid_t pid = ::fork();
                if (pid == 0) {
                    // Stays in the group, holds no pipe of the session: one it could not let
                    // go of would keep the session's stream open, so it ends instead.
                    ::close(ready[0]);
                    if (!std::freopen("/dev/null", "r", stdin) ||
                        !std::freopen("/dev/null", "w", stdout))
                        std::_Exit(1);
                    ::close(ready[1]);
                    for (;;)
                        ::pause();
                }
                ::close(ready[1]);
                char end;
                while (::read(ready[0], &end, 1) < 0 && errno == EINTR) {
                }
                ::close(ready[0]);
                send(text_result(*id, std::to_string(pid)));
            } else if (tool == "flood") {
                flood(argument(m, "count", 1000), argument(m, "bytes", 1024));
                send(text_result(*id, "flooded"));
            } else if (tool == "shout") {
                shout(argument(m, "count", 1000), argument(m, "bytes", 100));
                send(text_result(*id, "shouted"));
            } else if (tool == "babble") {
                babble(argument(m, "count", 1000));
                send(text_result(*id, "babbled"));
            } else if (tool == "crash") {
                std::_Exit(7);
            } else if (tool == "ask") {
                auto ours = "ask-" + std::to_string(++asked);
                asking[json::serialize(json::value(ours))] = *id;
                send(json::object{
                    {"jsonrpc", "2.0"},
                    {"id", ours},
                    {"method", "sampling/createMessage"},
                    {"params",
                     {{"messages", json::array{{{"role", "user"},
                                                {"content", {{"type", "text"}, {"text", "hi?"}}}}}},
                      {"maxTokens", 16}}}});
            } else {
                send(json::object{
                    {"jsonrpc", "2.0"},
                    {"id", *id},
                    {"error", {{"code", -32602}, {"message", "unknown tool " + tool}}}});
            }
        } else {
            send(json::object{{"jsonrpc", "2.0"},
                              {"id", *id},
                              {"error", {{"code", -32601}, {"message", "method not found"}}}});
        }
    }
    if (ignore_term)
        for (;;)
            ::pause();
    return 0;
}
