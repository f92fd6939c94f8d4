// A request to stop a long computation (Ctrl-C in the Python module): one process-wide flag, set from a signal
// handler (an atomic store, async-signal-safe) and read by the long loops — the runner between points, explore
// between evaluations, Monte Carlo between chunks of samples, the certified engine between precisions. Loops in worker
// threads stop taking work when it is set; the calling thread then throws Interrupted.
#pragma once

#include <stdexcept>

namespace privamp {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

bool interrupt_requested();
void request_interrupt();  // async-signal-safe
void clear_interrupt();
void throw_if_interrupted();  // Interrupted if requested

}  // namespace privamp
