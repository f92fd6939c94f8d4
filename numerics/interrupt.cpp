#include "numerics/interrupt.hpp"

#include <atomic>

namespace privamp {

namespace {
std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");
}  // namespace

bool interrupt_requested() { return g_requested.load(std::memory_order_relaxed); }
void request_interrupt() { g_requested.store(true, std::memory_order_relaxed); }
void clear_interrupt() { g_requested.store(false, std::memory_order_relaxed); }
void throw_if_interrupted() {
  if (interrupt_requested()) throw Interrupted();
}

}  // namespace privamp
