// Durations as the progress lines print them.
#include <catch2/catch.hpp>

#include "numerics/work_limit.hpp"

using namespace privamp;

TEST_CASE("durations are rounded once, then split: never '1 min 60 s'", "[numerics][progress]") {
  CHECK(duration_text(0) == "0 s");
  CHECK(duration_text(59.4) == "59 s");
  CHECK(duration_text(59.6) == "1 min 00 s");
  CHECK(duration_text(119.6) == "2 min 00 s");
  CHECK(duration_text(125) == "2 min 05 s");
  CHECK(duration_text(3599.4) == "59 min 59 s");
  CHECK(duration_text(3599.6) == "1 h 00 min");
  CHECK(duration_text(7199) == "2 h 00 min");
  CHECK(duration_text(7170) == "2 h 00 min");
  CHECK(duration_text(7169) == "1 h 59 min");
}
