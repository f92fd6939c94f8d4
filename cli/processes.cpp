// The processes of a run: one by default; with the MPI build (-DPRIVAMP_MPI=ON) and when started by mpirun (or
// another MPI launcher), the ranks of MPI_COMM_WORLD. A binary built with MPI but started directly never
// initialises MPI, so it behaves exactly like the default build.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "numerics/errors.hpp"

#ifdef PRIVAMP_MPI
#include <mpi.h>
#endif

namespace privamp::cli {

namespace {

#ifdef PRIVAMP_MPI
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

class MpiCommunicator : public verify::Communicator {
 public:
  int rank() const override {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }
  int size() const override {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
  }
  std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) const override {
    const int n = size();
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(n), offsets(n);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < n; ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
    std::vector<std::vector<std::uint8_t>> out(n);
    for (int r = 0; r < n; ++r) out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
  }
  std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine) const override {
    const int n = size(), me = rank();
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(n), offsets(n);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < n; ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<std::uint8_t> all(me == 0 ? static_cast<std::size_t>(total) : 0);
    MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    std::vector<std::vector<std::uint8_t>> out;
    if (me == 0)
      for (int r = 0; r < n; ++r) out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
  }
};

bool mpi_started = false;
#endif

const verify::Communicator& single() {
  static const verify::Communicator one;
  return one;
}

}  // namespace

Processes::Processes(int* argc, char*** argv) {
#ifdef PRIVAMP_MPI
  if (launched_by_mpi()) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    mpi_started = true;
  }
#else
  (void)argc;
  (void)argv;
#endif
}

Processes::~Processes() {
#ifdef PRIVAMP_MPI
  if (mpi_started) MPI_Finalize();
#endif
}

const verify::Communicator& process_communicator() {
#ifdef PRIVAMP_MPI
  static const MpiCommunicator world;
  if (mpi_started) return world;
#endif
  return single();
}

void on_first_process(const verify::Communicator& comm, const std::function<void()>& f) {
  std::string refusal;
  if (comm.rank() == 0) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      refusal = e.what();
      if (refusal.empty()) refusal = "refused";
    }
  }
  if (comm.size() > 1) {
    const auto all = comm.all_gather(std::vector<std::uint8_t>(refusal.begin(), refusal.end()));
    refusal.assign(all.front().begin(), all.front().end());
  }
  if (!refusal.empty()) invalid_input("{}", refusal);
}

bool built_with_mpi() {
#ifdef PRIVAMP_MPI
  return true;
#else
  return false;
#endif
}

}  // namespace privamp::cli
