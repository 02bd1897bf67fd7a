#include "process/logging.hpp"

#include "protocol/utc_timestamp.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <spdlog/formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace gate::process {

namespace {

// One JSON object per line; the message is escaped properly, which a pattern cannot do.
class json_formatter final : public spdlog::formatter {
public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        auto ts = protocol::utc_timestamp(
            std::chrono::time_point_cast<std::chrono::system_clock::duration>(msg.time));
        auto level = spdlog::level::to_string_view(msg.level);
        auto text = boost::json::serialize(
            boost::json::string(std::string_view(msg.payload.data(), msg.payload.size())));
        fmt::format_to(std::back_inserter(dest), R"({{"time":"{}","level":"{}","msg":{}}})", ts,
                       std::string_view(level.data(), level.size()), text);
        dest.push_back('\n');
    }
    std::unique_ptr<spdlog::formatter> clone() const override {
        return std::make_unique<json_formatter>();
    }
};

} // namespace

void setup_logging(const std::string& format, const std::string& level) {
    auto logger =
        std::make_shared<spdlog::logger>("gate", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    if (format == "json")
        logger->set_formatter(std::make_unique<json_formatter>());
    else
        logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    logger->set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
    logger->flush_on(spdlog::level::debug);
    spdlog::set_default_logger(std::move(logger));
}

} // namespace gate::process
