#include "cli/quantity_list.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/range.hpp"

namespace privamp::cli {

namespace {
double to_number(const std::string& s, const std::string& flag) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  double x = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (outside_double_range(ec, x) && ptr == s.data() + s.size())
    invalid_input("{}: '{}' is out of the range of doubles (allowed: {})", flag, s, kDoubleRange);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(x))
    invalid_input("{}: '{}' is not a number (decimal or exponent notation; inf, as written, where a supremum is meant)", flag, s);
  return x + 0.0;  // (-0 is 0: it was printed "-0" in profiles and JSON)
}
}  // namespace

std::vector<double> parse_number_list(const std::string& text, const std::string& flag) {
  // The values a list expands to, counted before they are made: a short text of many ranges asks for no memory.
  constexpr std::size_t kMaxValues = 100000;
  std::vector<double> out;
  const auto room = [&](double count, const std::string& item) {
    if (static_cast<double>(out.size()) + count > static_cast<double>(kMaxValues))
      invalid_input("{}: the list expands to more than {} values (at '{}', after {}): give fewer or shorter ranges", flag,
                    kMaxValues, item, out.size());
  };
  // (getline drops an empty last item: "2," is refused as "1,,2" is.)
  if (const auto last = text.find_last_not_of(" \t"); last == std::string::npos || text[last] == ',')
    invalid_input("{}: empty item in '{}'", flag, text);
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) invalid_input("{}: empty item in '{}'", flag, text);
    const auto c1 = item.find(':');
    if (c1 == std::string::npos) {
      room(1, item);
      out.push_back(to_number(item, flag));
      continue;
    }
    const auto c2 = item.find(':', c1 + 1);
    if (c2 == std::string::npos) invalid_input("{}: range '{}' must be a:b:step or a:b:xN", flag, item);
    const double a = to_number(item.substr(0, c1), flag), b = to_number(item.substr(c1 + 1, c2 - c1 - 1), flag);
    const std::string step = item.substr(c2 + 1);
    if (!std::isfinite(a) || !std::isfinite(b) || !(a <= b))
      invalid_input("{}: range '{}' needs finite a <= b", flag, item);
    if (!step.empty() && step[0] == 'x') {
      const double n = to_number(step.substr(1), flag);
      if (!(n >= 2 && n <= 100000 && n == std::floor(n)))
        invalid_input("{}: range '{}': N must be an integer in [2, 100000]", flag, item);
      if (!(a > 0)) invalid_input("{}: log-spaced range '{}' needs a > 0", flag, item);
      room(n, item);
      for (int i = 0; i < static_cast<int>(n); ++i)
        out.push_back(log_spaced(a, b, i, static_cast<long>(n)));
    } else {
      const double h = to_number(step, flag);
      if (!(h > 0) || (b - a) / h > 100000)
        invalid_input("{}: range '{}': step must be > 0 with at most 100000 points", flag, item);
      const long count = static_cast<long>(std::floor((b - a) / h * (1 + 1e-12))) + 1;
      room(static_cast<double>(count), item);
      for (long i = 0; i < count; ++i) out.push_back(a + static_cast<double>(i) * h);
    }
  }
  if (out.empty()) invalid_input("{}: no values given", flag);
  return out;
}

}  // namespace privamp::cli
