#include "numerics/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace privamp {

namespace {
// Cores held. With no claim at all, the thread that asks (the main one) is busy on its own core.
std::atomic<int> held{0};
}  // namespace

int core_count() {
  static const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cores;
}

WorkerClaim::WorkerClaim() { ++held; }
WorkerClaim::~WorkerClaim() { --held; }

HelperClaim::HelperClaim(int wanted) {
  int now = held.load();
  for (;;) {
    const int busy = std::max(1, now);  // the asking thread's core, claimed or not
    const int got = std::clamp(core_count() - busy, 0, std::max(0, wanted));
    if (got == 0) return;
    const int after = busy + got;  // an unclaimed asker is counted while its helpers run
    if (held.compare_exchange_weak(now, after)) {
      granted_ = got;
      held_ = after - now;
      return;
    }
  }
}

HelperClaim::~HelperClaim() {
  if (held_ > 0) held -= held_;
}

}  // namespace privamp
