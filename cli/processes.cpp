// The processes of a run: one by default; with the MPI build (-DPRIVAMP_MPI=ON, or AUTO with MPI installed) and
// when started by mpirun (or another MPI launcher), the ranks of MPI_COMM_WORLD. MPI lives in a module of its own,
// libprivamp_mpi.so (cli/mpi_layer.hpp), loaded with dlopen only under a launcher: a run started directly never
// loads OpenMPI's libraries (they were a sixth of the process start of every command) and behaves exactly like the
// build without MPI. The module is looked for beside the executable, then in the library folder it installs to.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/mpi_layer.hpp"
#include "numerics/errors.hpp"

namespace privamp::cli {

namespace {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

// The number of ranks the launcher says it started (0: it does not say).
[[maybe_unused]] long launch_size() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* text = std::getenv(v)) return std::strtol(text, nullptr, 10);
  return 0;
}

// The module's functions, resolved once.
struct MpiLayer {
  decltype(&privamp_mpi_init) init = nullptr;
  decltype(&privamp_mpi_finalize) finalize = nullptr;
  decltype(&privamp_mpi_rank) rank = nullptr;
  decltype(&privamp_mpi_size) size = nullptr;
  decltype(&privamp_mpi_all_gather_counts) all_gather_counts = nullptr;
  decltype(&privamp_mpi_all_gather_bytes) all_gather_bytes = nullptr;
  decltype(&privamp_mpi_gather_counts) gather_counts = nullptr;
  decltype(&privamp_mpi_gather_bytes) gather_bytes = nullptr;
};

#ifdef PRIVAMP_MPI_MODULE
// Where the module may be: beside the executable (the build tree, the Python package), then the installed folder.
std::vector<std::filesystem::path> module_candidates() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path dir = exe.parent_path();
  return {dir / PRIVAMP_MPI_MODULE, (dir / PRIVAMP_MPI_MODULE_FROM_BIN / PRIVAMP_MPI_MODULE).lexically_normal()};
}
#endif

// The loaded layer, or a message saying why there is none.
MpiLayer load_layer(std::string& why) {
  MpiLayer layer;
#ifdef PRIVAMP_MPI_MODULE
  void* handle = nullptr;
  std::string tried;
  for (const auto& path : module_candidates()) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) break;
    const char* message = dlerror();
    std::string error = message ? message : "not loaded";
    if (error.rfind(path.string() + ": ", 0) == 0) error.erase(0, path.string().size() + 2);  // dlerror names the path
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", path.string(), error);
  }
  if (!handle) {
    why = "its MPI layer could not be loaded: " + (tried.empty() ? std::string("the executable's folder is unknown") : tried);
    return layer;
  }
  auto symbol = [&](auto& f, const char* name) {
    f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(handle, name));
    if (!f && why.empty()) why = fmt::format("its MPI layer lacks {}", name);
  };
  decltype(&privamp_mpi_layer_version) version = nullptr;
  symbol(version, "privamp_mpi_layer_version");
  symbol(layer.init, "privamp_mpi_init");
  symbol(layer.finalize, "privamp_mpi_finalize");
  symbol(layer.rank, "privamp_mpi_rank");
  symbol(layer.size, "privamp_mpi_size");
  symbol(layer.all_gather_counts, "privamp_mpi_all_gather_counts");
  symbol(layer.all_gather_bytes, "privamp_mpi_all_gather_bytes");
  symbol(layer.gather_counts, "privamp_mpi_gather_counts");
  symbol(layer.gather_bytes, "privamp_mpi_gather_bytes");
  if (why.empty() && version() != PRIVAMP_MPI_LAYER_VERSION)
    why = fmt::format("its MPI layer is of version {}, this program needs {}", version(), PRIVAMP_MPI_LAYER_VERSION);
  if (!why.empty()) layer = MpiLayer{};
#else
  why = "it was built without MPI";
#endif
  return layer;
}

MpiLayer mpi;  // set when MPI was initialised

void check(int status, const char* what) {
  if (status != 0) throw std::runtime_error(fmt::format("MPI {} failed (error code {})", what, status));
}

// Offsets of the ranks' bytes in the gathered buffer, and its size.
int offsets_of(const std::vector<int>& counts, std::vector<int>& offsets) {
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  return total;
}

class MpiCommunicator : public verify::Communicator {
 public:
  int rank() const override {
    int r = 0;
    check(mpi.rank(&r), "rank");
    return r;
  }
  int size() const override {
    int s = 1;
    check(mpi.size(&s), "size");
    return s;
  }
  std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) const override {
    const int n = size(), count = static_cast<int>(mine.size());
    std::vector<int> counts(n), offsets(n);
    check(mpi.all_gather_counts(count, counts.data()), "all-gather");
    std::vector<std::uint8_t> all(static_cast<std::size_t>(offsets_of(counts, offsets)));
    check(mpi.all_gather_bytes(mine.data(), count, all.data(), counts.data(), offsets.data()), "all-gather");
    std::vector<std::vector<std::uint8_t>> out(n);
    for (int r = 0; r < n; ++r) out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
  }
  std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine) const override {
    const int n = size(), me = rank(), count = static_cast<int>(mine.size());
    std::vector<int> counts(n), offsets(n);
    check(mpi.gather_counts(count, counts.data()), "gather");
    const int total = offsets_of(counts, offsets);
    std::vector<std::uint8_t> all(me == 0 ? static_cast<std::size_t>(total) : 0);
    check(mpi.gather_bytes(mine.data(), count, all.data(), counts.data(), offsets.data()), "gather");
    std::vector<std::vector<std::uint8_t>> out;
    if (me == 0)
      for (int r = 0; r < n; ++r) out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
  }
};

const verify::Communicator& single() {
  static const verify::Communicator one;
  return one;
}

}  // namespace

Processes::Processes(int* argc, char*** argv) {
  if (!launched_by_mpi()) return;
  std::string why;
  MpiLayer layer = load_layer(why);
  if (!layer.init) {
#ifdef PRIVAMP_MPI_MODULE
    // An MPI build whose module is missing: every rank would otherwise run the whole job and write the same files
    // (a launch of one rank, such as srun -n 1, runs as one process).
    if (launch_size() != 1) {
      std::cerr << "privamp: error: started by an MPI launcher, but " << why << "\n";
      std::exit(2);
    }
#endif
    return;  // a build without MPI runs as one process, as documented
  }
  if (layer.init(argc, argv) != 0) {
    std::cerr << "privamp: error: MPI_Init_thread failed\n";
    std::exit(2);
  }
  mpi = layer;
}

Processes::~Processes() {
  if (mpi.finalize) mpi.finalize();
}

const verify::Communicator& process_communicator() {
  static const MpiCommunicator world;
  if (mpi.init) return world;
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

}  // namespace privamp::cli
