#include "simulations/replay/recorded_traffic.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace gate::sim {

namespace json = boost::json;

namespace {

std::string key_of(const std::string& upstream, const std::string& method) {
    return upstream + '\n' + method;
}

// A canonical text of params: members sorted at every depth, so the same request asked with
// its members in another order finds its answer.
json::value sorted(const json::value& v) {
    if (auto* o = v.if_object()) {
        std::vector<std::pair<std::string, json::value>> members;
        for (const auto& [k, m] : *o)
            members.emplace_back(std::string(k), sorted(m));
        std::sort(members.begin(), members.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        json::object out;
        for (auto& [k, m] : members)
            out[k] = std::move(m);
        return out;
    }
    if (auto* a = v.if_array()) {
        json::array out;
        for (const auto& item : *a)
            out.push_back(sorted(item));
        return out;
    }
    return v;
}

recorded_reply reply_of(const protocol::recorded_answer& a) {
    if (a.failed)
        return *a.failed;
    return a.reply;
}

void read_file(const std::string& path, recorded_traffic& out, std::set<std::string>& names) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read the recording " + path);
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        if (line.empty())
            continue;
        auto parsed = protocol::parse_line(line);
        if (auto* why = std::get_if<std::string>(&parsed))
            throw std::runtime_error(path + ":" + std::to_string(n) + ": " + *why);
        auto& l = std::get<protocol::recorded_line>(parsed);
        if (auto* r = std::get_if<protocol::recorded_request>(&l)) {
            if (r->upstream)
                names.insert(*r->upstream);
            out.requests.push_back(std::move(*r));
        } else {
            auto& a = std::get<protocol::recorded_answer>(l);
            names.insert(a.upstream);
            out.answers.add(a);
        }
    }
}

} // namespace

void recorded_answers::add(const protocol::recorded_answer& a) {
    auto k = key_of(a.upstream, a.method);
    exact_[k + '\n' + json::serialize(sorted(a.params))].replies.push_back(reply_of(a));
    by_method_.insert_or_assign(k, reply_of(a));
}

std::optional<recorded_reply> recorded_answers::next(const std::string& upstream,
                                                     const std::string& method,
                                                     const json::object& params) {
    auto k = key_of(upstream, method);
    if (auto it = exact_.find(k + '\n' + json::serialize(sorted(params))); it != exact_.end()) {
        auto& q = it->second.replies;
        auto r = q.front();
        if (q.size() > 1)
            q.pop_front();
        return r;
    }
    if (auto it = by_method_.find(k); it != by_method_.end())
        return it->second;
    return std::nullopt;
}

recorded_traffic read_recording(const std::string& path, bool with_rotated) {
    recorded_traffic out;
    std::set<std::string> names;
    if (with_rotated && std::filesystem::exists(path + ".1"))
        read_file(path + ".1", out, names);
    read_file(path, out, names);
    // seq restarts at 1 when gate restarts: arrival time orders, seq breaks ties.
    std::stable_sort(out.requests.begin(), out.requests.end(), [](const auto& a, const auto& b) {
        return a.at != b.at ? a.at < b.at : a.seq < b.seq;
    });
    out.upstreams.assign(names.begin(), names.end());
    return out;
}

} // namespace gate::sim
