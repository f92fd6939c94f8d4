/* The MPI layer's interface: the functions of the module libprivamp_mpi.so (cli/mpi_layer.cpp), which the command
   line loads with dlopen only when an MPI launcher started it (cli/processes.cpp). C linkage, so that the module and
   the program agree on the calls whatever their compilers; every function returns an MPI error code (0 = success).
   Keeping MPI out of the program's link spares every run that does not use it the loading of OpenMPI's libraries. */
#ifndef PRIVAMP_CLI_MPI_LAYER_HPP
#define PRIVAMP_CLI_MPI_LAYER_HPP

#ifdef __cplusplus
extern "C" {
#endif

#define PRIVAMP_MPI_LAYER_VERSION 1

int privamp_mpi_layer_version(void);
int privamp_mpi_init(int* argc, char*** argv);
int privamp_mpi_finalize(void);
int privamp_mpi_rank(int* rank);
int privamp_mpi_size(int* size);
/* Every rank's count (counts has one entry per rank), then every rank's bytes at offsets[r] of all. */
int privamp_mpi_all_gather_counts(int count, int* counts);
int privamp_mpi_all_gather_bytes(const void* mine, int count, void* all, const int* counts, const int* offsets);
/* The same, to rank 0 only (counts, all and offsets are read on rank 0 alone). */
int privamp_mpi_gather_counts(int count, int* counts);
int privamp_mpi_gather_bytes(const void* mine, int count, void* all, const int* counts, const int* offsets);

#ifdef __cplusplus
}
#endif

#endif
