// Core claims: helpers come only from cores nobody holds, and every claim is given back.
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "numerics/parallel.hpp"

using namespace privamp;

TEST_CASE("core claims: a helper only from a free core, none while every core is held", "[numerics][parallel]") {
  const int cores = core_count();
  REQUIRE(cores >= 1);
  {
    const HelperClaim lone(8);  // the asking thread holds one core, unclaimed
    CHECK(lone.granted() == cores - 1);
    const HelperClaim second(8);  // its helpers hold the rest
    CHECK(second.granted() == 0);
  }
  {
    std::vector<std::unique_ptr<WorkerClaim>> workers;
    for (int c = 0; c < cores; ++c) workers.push_back(std::make_unique<WorkerClaim>());
    CHECK(HelperClaim(1).granted() == 0);
    workers.pop_back();
    // One worker gone: its core is free unless it was the only one (the asker itself then is busy).
    CHECK(HelperClaim(1).granted() == (cores >= 2 ? 1 : 0));
  }
  CHECK(HelperClaim(0).granted() == 0);
  // Everything given back: the lone asker gets the same as at first.
  CHECK(HelperClaim(8).granted() == cores - 1);
}
