#include "shim/line_splitter.hpp"

#include <algorithm>

namespace gate::shim {

bool line_splitter::feed(std::string_view bytes, std::vector<std::string>& out) {
    if (overflowed_)
        return false;
    while (!bytes.empty()) {
        auto nl = bytes.find('\n');
        auto piece = bytes.substr(0, nl);
        if (partial_.size() + piece.size() > max_line_) {
            overflowed_ = true;
            partial_.clear();
            return false;
        }
        if (nl == std::string_view::npos) {
            partial_.append(piece);
            break;
        }
        std::string line;
        if (partial_.empty()) {
            line.assign(piece);
        } else {
            line = std::move(partial_);
            partial_.clear();
            line.append(piece);
        }
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!line.empty())
            out.push_back(std::move(line));
        bytes.remove_prefix(nl + 1);
    }
    return true;
}

std::string to_stdio_line(std::string_view json_text) {
    std::string line(json_text);
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::replace(line.begin(), line.end(), '\r', ' ');
    line.push_back('\n');
    return line;
}

} // namespace gate::shim
