// Seeded random streams. A stream is identified by (seed, stream index); work split into fixed chunks, each with
// its own stream, gives the same numbers whatever the number of threads.
#pragma once

#include <cstdint>
#include <random>
#include <span>

namespace privamp::sim {

// SplitMix64 finaliser: decorrelates nearby (seed, stream) pairs before they seed the engine.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Rng {
 public:
  using Engine = std::mt19937_64;
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0);

  Engine& engine() { return engine_; }
  double uniform();                                  // in (0, 1)
  double normal();                                   // standard normal (ziggurat)
  double exponential();                              // rate 1
  void normal(std::span<double> out);                // batch of standard normals
  void uniform(std::span<double> out);

 private:
  Engine engine_;
};

}  // namespace privamp::sim
