// The machine's cores among the threads of one process. A thread that runs a share of some parallel work (a
// verify or explore worker, one direction of a two-sided profile) holds a WorkerClaim; a computation that could
// split itself further asks for helpers with a HelperClaim and gets only the cores nobody holds. So nested
// parallel work never oversubscribes the machine, and a lone computation (one `privamp divergence`) uses them all.
// Which threads compute a result never changes it: work is split so that every number is computed the same way.
#pragma once

namespace privamp {

// The cores this process may use (std::thread::hardware_concurrency, at least 1).
int core_count();

class WorkerClaim {
 public:
  WorkerClaim();
  ~WorkerClaim();
  WorkerClaim(const WorkerClaim&) = delete;
  WorkerClaim& operator=(const WorkerClaim&) = delete;
};

class HelperClaim {
 public:
  // Up to `wanted` helper threads beside the calling one, as many as cores are free (0 when none are).
  explicit HelperClaim(int wanted);
  ~HelperClaim();
  HelperClaim(const HelperClaim&) = delete;
  HelperClaim& operator=(const HelperClaim&) = delete;
  int granted() const { return granted_; }

 private:
  int granted_ = 0, held_ = 0;
};

}  // namespace privamp
