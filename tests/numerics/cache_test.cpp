// numerics/cache.hpp: the program's one cache policy (bounded in entries and weight, oldest dropped first,
// thread-safe, a throwing build stores nothing).
#include <catch2/catch.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "numerics/cache.hpp"

using privamp::Cache;

TEST_CASE("the cache returns what it stored and builds only what it lacks", "[numerics][cache]") {
  Cache<int, std::string> cache(3);
  int builds = 0;
  auto get = [&](int k) { return cache.get_or_build(k, [&] { ++builds; return std::to_string(k * k); }); };
  CHECK(get(2) == "4");
  CHECK(get(2) == "4");
  CHECK(builds == 1);
  CHECK(get(3) == "9");
  CHECK(get(4) == "16");
  CHECK(cache.size() == 3);
  CHECK(get(5) == "25");  // the oldest (2) is dropped
  CHECK(cache.size() == 3);
  CHECK(builds == 4);
  CHECK(get(3) == "9");  // kept
  CHECK(builds == 4);
  CHECK(get(2) == "4");  // built again
  CHECK(builds == 5);
  // find: what is stored, nothing built.
  CHECK(cache.find(2) == std::optional<std::string>("4"));
  CHECK_FALSE(cache.find(3));  // dropped when 2 came back
  CHECK(builds == 5);
}

TEST_CASE("the cache holds its weight bound and does not store what is heavier than it", "[numerics][cache]") {
  Cache<std::string, int> cache(100, 10);
  cache.get_or_build("a", [] { return 1; }, 4);
  cache.get_or_build("b", [] { return 2; }, 4);
  CHECK(cache.weight() == 8);
  cache.get_or_build("c", [] { return 3; }, 4);  // 12 > 10: "a" goes
  CHECK(cache.weight() == 8);
  CHECK(cache.size() == 2);
  CHECK(cache.get_or_build("huge", [] { return 4; }, 11) == 4);  // returned, not stored
  CHECK(cache.size() == 2);
  CHECK(cache.weight() == 8);
  Cache<int, int> none(0);
  CHECK(none.get_or_build(1, [] { return 7; }) == 7);
  CHECK(none.size() == 0);
}

TEST_CASE("a build that throws stores nothing", "[numerics][cache]") {
  Cache<int, int> cache(4);
  CHECK_THROWS_AS(cache.get_or_build(1, []() -> int { throw std::runtime_error("bad"); }), std::runtime_error);
  CHECK(cache.size() == 0);
  CHECK(cache.get_or_build(1, [] { return 5; }) == 5);
}

TEST_CASE("threads sharing a cache all get the value of their key", "[numerics][cache]") {
  Cache<int, long> cache(16);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int k = (i * 7 + t) % 40;  // more keys than entries: eviction under contention
        if (cache.get_or_build(k, [k] { return 1000L * k + 1; }) != 1000L * k + 1) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(cache.size() <= 16);
}
