// The module libprivamp_mpi.so: the few MPI calls the command line makes (cli/mpi_layer.h), linked against MPI.
// Built when CMake finds MPI; loaded by cli/processes.cpp only under an MPI launcher.
#include "cli/mpi_layer.hpp"

#include <mpi.h>

#define PRIVAMP_MPI_EXPORT extern "C" __attribute__((visibility("default")))

PRIVAMP_MPI_EXPORT int privamp_mpi_layer_version(void) { return PRIVAMP_MPI_LAYER_VERSION; }

PRIVAMP_MPI_EXPORT int privamp_mpi_init(int* argc, char*** argv) {
  int provided = 0;
  return MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

PRIVAMP_MPI_EXPORT int privamp_mpi_finalize(void) { return MPI_Finalize(); }

PRIVAMP_MPI_EXPORT int privamp_mpi_rank(int* rank) { return MPI_Comm_rank(MPI_COMM_WORLD, rank); }

PRIVAMP_MPI_EXPORT int privamp_mpi_size(int* size) { return MPI_Comm_size(MPI_COMM_WORLD, size); }

PRIVAMP_MPI_EXPORT int privamp_mpi_all_gather_counts(int count, int* counts) {
  return MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
}

PRIVAMP_MPI_EXPORT int privamp_mpi_all_gather_bytes(const void* mine, int count, void* all, const int* counts, const int* offsets) {
  return MPI_Allgatherv(mine, count, MPI_BYTE, all, counts, offsets, MPI_BYTE, MPI_COMM_WORLD);
}

PRIVAMP_MPI_EXPORT int privamp_mpi_gather_counts(int count, int* counts) {
  return MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

PRIVAMP_MPI_EXPORT int privamp_mpi_gather_bytes(const void* mine, int count, void* all, const int* counts, const int* offsets) {
  return MPI_Gatherv(mine, count, MPI_BYTE, all, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
}
