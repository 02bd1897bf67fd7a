#include "actors/sinks/recorder.hpp"

#include "actors/sinks/record_file.hpp"
#include "protocol/recording.hpp"

#include <algorithm>
#include <array>
#include <boost/json/parse.hpp>
#include <caf/all.hpp>
#include <openssl/evp.h>
#include <random>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace gate::actors {

namespace {

namespace json = boost::json;

struct recorder_state {
    std::optional<record_file> file;
    record_backlog backlog;
    std::shared_ptr<delivery_tally> tally;
    std::array<unsigned char, 16> salt{};
    bool complained = false;
    static inline const char* name = "gate.recorder";
};

using self_ptr = recorder_actor::stateful_pointer<recorder_state>;

// A session id is a bearer of the session: the line carries a salted hash that groups a
// session's requests and cannot be sent back to gate.
std::string session_alias(const std::array<unsigned char, 16>& salt, const std::string& id) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    auto* md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
    EVP_DigestUpdate(md, salt.data(), salt.size());
    EVP_DigestUpdate(md, id.data(), id.size());
    EVP_DigestFinal_ex(md, digest, &len);
    EVP_MD_CTX_free(md);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < 8 && i < len; ++i) {
        out.push_back(hex[digest[i] >> 4]);
        out.push_back(hex[digest[i] & 15]);
    }
    return out;
}

protocol::recorded_principal recorded(const policy::principal& p) {
    protocol::recorded_principal r{p.subject, p.issuer, p.groups, {}};
    static constexpr std::array<std::string_view, 7> registered = {"exp", "iat", "nbf", "jti",
                                                                   "aud", "iss", "sub"};
    for (const auto& [key, value] : p.claims) {
        if (std::find(registered.begin(), registered.end(), key) != registered.end() ||
            protocol::redacted_member(key) || value.is_structured())
            continue;
        r.claims[key] = value;
    }
    return r;
}

std::string line_of(const recorder_state& st, heard_request& h) {
    protocol::recorded_request r;
    r.seq = h.seq;
    r.at = h.at;
    if (!h.session.empty())
        r.session = session_alias(st.salt, h.session);
    if (!h.version.empty())
        r.version = std::move(h.version);
    if (h.caller)
        r.principal = recorded(*h.caller);
    boost::system::error_code ec;
    auto message = json::parse(h.body, ec);
    r.message = ec ? json::value(json::object{}) : protocol::redact(std::move(message));
    r.outcome = std::move(h.outcome);
    r.upstream = std::move(h.upstream);
    return protocol::to_json_line(r);
}

std::string line_of(heard_answer& h) {
    protocol::recorded_answer a;
    a.request = h.request;
    a.at = h.at;
    a.upstream = std::move(h.upstream);
    a.method = std::move(h.method);
    auto params = protocol::redact(std::move(h.params));
    if (auto* p = params.if_object()) {
        p->erase("_meta"); // the 2026-07-28 envelope gate adds, and progress tokens
        a.params = std::move(*p);
    }
    if (h.failure_kind) {
        a.failed = protocol::recorded_answer::failure{std::move(*h.failure_kind), h.status,
                                                      std::move(h.failure_message)};
    } else {
        boost::system::error_code ec;
        auto reply = json::parse(h.reply, ec);
        auto* o = ec ? nullptr : reply.if_object();
        if (o && o->contains("error"))
            a.reply = json::object{{"error", protocol::redact((*o)["error"])}};
        else if (o && o->contains("result"))
            a.reply = json::object{{"result", protocol::redact((*o)["result"])}};
        else
            a.failed = protocol::recorded_answer::failure{"protocol", 0,
                                                          "the answer was not a JSON-RPC response"};
    }
    return protocol::to_json_line(a);
}

void write(self_ptr self, heard_event& e) {
    auto& st = self->state;
    auto line = std::visit(
        [&](auto& h) {
            if constexpr (std::is_same_v<std::decay_t<decltype(h)>, heard_request>)
                return line_of(st, h);
            else
                return line_of(h);
        },
        e);
    if (st.file->write(line)) {
        st.tally->delivered.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    st.tally->dropped.fetch_add(1, std::memory_order_relaxed);
    if (!st.complained) {
        st.complained = true; // once: a full disk would otherwise log every line
        spdlog::warn("recording: an event was not written ({}); see "
                     "gate_recording_events_total{{outcome=\"dropped\"}}",
                     st.file->error().empty() ? "a line longer than --record-max-bytes"
                                              : st.file->error());
    }
}

recorder_actor::behavior_type recorder(self_ptr self, std::shared_ptr<record_file> file,
                                       record_backlog backlog,
                                       std::shared_ptr<delivery_tally> tally) {
    auto& st = self->state;
    st.file.emplace(std::move(*file));
    st.backlog = std::move(backlog);
    st.tally = std::move(tally);
    std::random_device rd;
    for (auto& b : st.salt)
        b = static_cast<unsigned char>(rd());
    return {
        [=](record_batch& b) {
            self->state.backlog->fetch_sub(static_cast<std::int64_t>(b.events.size()),
                                           std::memory_order_relaxed);
            for (auto& e : b.events)
                write(self, e);
            self->state.file->flush();
        },
        [=](batch_flush& f) {
            self->state.file->flush();
            f.reply(true);
        },
    };
}

} // namespace

recorder_actor spawn_recorder(caf::actor_system& sys, const record_target& target,
                              record_backlog backlog, std::shared_ptr<delivery_tally> tally) {
    std::string why;
    auto file = record_file::open(target.path, target.max_bytes, why);
    if (!file)
        throw std::runtime_error("--record: " + why);
    return sys.spawn(recorder, std::make_shared<record_file>(std::move(*file)), std::move(backlog),
                     std::move(tally));
}

} // namespace gate::actors
