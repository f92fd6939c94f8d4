#include "numerics/work_limit.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp {

std::string duration_text(double seconds) {
  // Rounded once, then split (rounding each part on its own printed "1 min 60 s" for 119.6 s).
  if (!(seconds < 3600 - 0.5)) {
    const double minutes = std::round(seconds / 60);
    return fmt::format("{:.0f} h {:02.0f} min", std::floor(minutes / 60), std::fmod(minutes, 60));
  }
  const double whole = std::round(seconds);
  if (whole < 60) return fmt::format("{:.0f} s", whole);
  return fmt::format("{:.0f} min {:02.0f} s", std::floor(whole / 60), std::fmod(whole, 60));
}

void check_max_seconds(const std::string& command, double seconds) {
  if (!(seconds >= 0 && std::isfinite(seconds))) throw_invalid(command, "--max-seconds", seconds, "0 <= seconds < inf (0: no limit)");
}

ProgressFunction limited_progress(ProgressFunction progress, double seconds, std::string what, std::string unit, std::string option) {
  if (!(seconds > 0)) return progress;
  return [progress = std::move(progress), seconds, what = std::move(what), unit = std::move(unit), option = std::move(option),
          start = std::chrono::steady_clock::now()](std::size_t done, std::size_t total) {
    if (progress) progress(done, total);
    if (done == 0 || done >= total) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed < std::max(2.0, 0.01 * seconds)) return;  // the probe: a few items are no rate
    const double projected = elapsed * static_cast<double>(total) / static_cast<double>(done);
    if (projected > seconds)
      invalid_input("{}: {} {} would take about {} at the rate of the first {} ({} so far); the limit is {} ({}): give fewer {}, "
                    "or a larger {}", what, total, unit, duration_text(projected), done, duration_text(elapsed),
                    duration_text(seconds), option, unit, option);
  };
}

}  // namespace privamp
