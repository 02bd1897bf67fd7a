// Where a request's header fields live: a buffer of the connection's coroutine, made afresh for
// each request it reads. Beast gives each field an allocation of its own (five or six on a
// proxied call, about 70 instructions each to take and give back); they all die with the
// request's parser, so a bump pointer over a buffer that outlives the parser serves them.
// Past the buffer, and for every copy of a request (which may outlive it), the heap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace gate::transport {

class fields_arena {
public:
    fields_arena() = default;
    fields_arena(const fields_arena&) = delete;
    fields_arena& operator=(const fields_arena&) = delete;

    // `bytes` aligned to `align`, or null when the buffer has no room left.
    void* take(std::size_t bytes, std::size_t align) noexcept {
        std::size_t at = (used_ + align - 1) & ~(align - 1);
        if (at > buffer_.size() || bytes > buffer_.size() - at)
            return nullptr;
        used_ = at + bytes;
        return buffer_.data() + at;
    }
    bool holds(const void* p) const noexcept {
        auto at = reinterpret_cast<std::uintptr_t>(p);
        auto begin = reinterpret_cast<std::uintptr_t>(buffer_.data());
        return at >= begin && at - begin < buffer_.size();
    }
    std::size_t used() const noexcept { return used_; }

private:
    alignas(std::max_align_t) std::array<std::byte, 1024> buffer_;
    std::size_t used_ = 0;
};

// The allocator of a request's fields: from its arena while there is room, else the heap. A
// default one (a request built rather than read) and a copy's use the heap alone. A move
// assigned into a request keeps the target's allocator (the fields are copied where the two
// differ); a request move-constructed from a parsed one (or swapped with one) takes the arena,
// as Beast's fields always take the source's allocator, so such a request must not outlive
// its connection's turn (http_server.hpp says so at the alias).
template <class T> class arena_allocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::false_type;
    using propagate_on_container_move_assignment = std::false_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    arena_allocator() noexcept = default;
    explicit arena_allocator(fields_arena* arena) noexcept : arena_(arena) {}
    template <class U>
    arena_allocator(const arena_allocator<U>& other) noexcept : arena_(other.arena()) {}

    T* allocate(std::size_t n) {
        if (arena_)
            if (void* p = arena_->take(n * sizeof(T), alignof(T)))
                return static_cast<T*>(p);
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (arena_ && arena_->holds(p))
            return; // the arena's: given back when the arena goes
        std::allocator<T>().deallocate(p, n);
    }
    // A copy may outlive the request it was made from: it takes the heap.
    arena_allocator select_on_container_copy_construction() const noexcept { return {}; }

    fields_arena* arena() const noexcept { return arena_; }
    template <class U> bool operator==(const arena_allocator<U>& other) const noexcept {
        return arena_ == other.arena();
    }

private:
    fields_arena* arena_ = nullptr;
};

} // namespace gate::transport
