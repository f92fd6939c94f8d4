// Processes of one run (MPI ranks with the MPI build under mpirun; otherwise one). The library never calls MPI
// itself: the command line provides an implementation (cli/processes.cpp), so the library builds without MPI.
#pragma once

#include <cstdint>
#include <vector>

namespace privamp::verify {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Every process passes its data; each receives every process's data, in rank order.
  virtual std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) const { return {mine}; }
  // Every process passes its bytes; the first process (rank 0) receives all of them in rank order, the others
  // an empty list.
  virtual std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine) const { return {mine}; }
};

}  // namespace privamp::verify
