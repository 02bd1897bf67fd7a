// The servers of one process's io threads (http_server::join): connections handed out in
// turn by the one that listens, and a request that belongs to another thread moved there with
// what was read of it (docs/io-threads.md).
#include "transport/http/http_server.hpp"
#include "transport/http/request_wire.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

namespace gate::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void http_server::join(std::shared_ptr<const group> members, std::size_t index) {
    if (members->size() < 2)
        return; // alone: no turn to take, no request to move
    index_ = index;
    connections_ = members->front()->connections_;
    group_ = std::move(members);
}

http_server& http_server::next_in_turn() {
    if (!group_)
        return *this;
    return *(*group_)[turn_++ % group_->size()];
}

http_server* http_server::elsewhere(const http_request& req, bool body_read) {
    if (!group_ || stopping_)
        return nullptr;
    auto to = handler_.owner(req, body_read);
    if (!to || *to == index_ || *to >= group_->size())
        return nullptr;
    return (*group_)[*to];
}

void http_server::move_to(http_server& to, tcp::socket& socket, std::string read) {
    boost::system::error_code ec;
    auto protocol = socket.local_endpoint(ec).protocol();
    if (ec)
        return; // the connection closed meanwhile
    auto fd = socket.release(ec);
    if (ec)
        return;
    asio::post(to.io_, [&to, protocol, fd, read = std::move(read)]() mutable {
        tcp::socket moved(to.io_, protocol, fd);
        if (to.stopping_)
            return; // closed with `moved`
        asio::co_spawn(to.io_, to.serve(std::move(moved), std::move(read)), asio::detached);
    });
}

bool http_server::moved_elsewhere(const http_request& req, bool body_read, tcp::socket& socket,
                                  const boost::beast::flat_buffer& buf) {
    auto* to = elsewhere(req, body_read);
    if (!to)
        return false;
    auto data = buf.data(); // beyond the request read: the body's start, a pipelined request
    move_to(*to, socket,
            request_wire(req, body_read) +
                std::string(static_cast<const char*>(data.data()), data.size()));
    return true;
}

} // namespace gate::transport
