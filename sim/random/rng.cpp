#include "sim/random/rng.hpp"

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/normal_distribution.hpp>

namespace privamp::sim {

Rng::Rng(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq seq{splitmix64(seed), splitmix64(seed ^ splitmix64(stream + 1)), splitmix64(stream)};
  engine_.seed(seq);
}

double Rng::uniform() {
  // 53 random bits mapped to the open interval (0, 1): never returns 0, so log(u) is always finite.
  return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

double Rng::normal() { return boost::random::normal_distribution<double>(0.0, 1.0)(engine_); }

double Rng::exponential() { return boost::random::exponential_distribution<double>(1.0)(engine_); }

void Rng::normal(std::span<double> out) {
  boost::random::normal_distribution<double> dist(0.0, 1.0);
  for (double& v : out) v = dist(engine_);
}

void Rng::uniform(std::span<double> out) {
  for (double& v : out) v = (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace privamp::sim
