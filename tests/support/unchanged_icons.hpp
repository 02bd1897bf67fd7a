// An icon rewriter that leaves every icon as written (gateway/pipeline/call_services.hpp), for
// the unit tests of the method groups whose egress is not what they test.
#pragma once

#include "gateway/pipeline/call_services.hpp"

namespace gate::test {

struct unchanged_icons final : gateway::pipeline::icon_rewriter {
    void rewrite_icons(const actors::snapshot&, std::size_t, std::string_view,
                       boost::json::array&) override {}
};

} // namespace gate::test
