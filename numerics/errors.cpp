#include "numerics/errors.hpp"

#include <cmath>

#include <fmt/format.h>

namespace privamp {

std::string format_number(double x) { return fmt::format("{}", x); }

void throw_invalid(std::string_view where, std::string_view parameter, double value, std::string_view allowed) {
  throw InvalidArgument(fmt::format("{}: parameter '{}' = {} is out of range (allowed: {})", where, parameter,
                                    format_number(value), allowed));
}

void check_finite(std::string_view where, std::string_view parameter, double value) {
  if (!std::isfinite(value)) throw_invalid(where, parameter, value, "a finite number");
}

void check_scale(std::string_view where, std::string_view parameter, double value) {
  if (!(value >= 1e-300) || !std::isfinite(value)) throw_invalid(where, parameter, value, "1e-300 <= value < inf");
}

void check_positive_finite(std::string_view where, std::string_view parameter, double value) {
  if (!(value > 0) || !std::isfinite(value)) throw_invalid(where, parameter, value, "0 < value < inf");
}

void check_nonnegative_finite(std::string_view where, std::string_view parameter, double value) {
  if (!(value >= 0) || !std::isfinite(value)) throw_invalid(where, parameter, value, "0 <= value < inf");
}

void check_probability(std::string_view where, std::string_view parameter, double value) {
  if (!(value >= 0 && value <= 1)) throw_invalid(where, parameter, value, "0 <= value <= 1");
}

void check_greater(std::string_view where, std::string_view parameter, double value, double bound) {
  if (!(value > bound) || std::isnan(value))
    throw_invalid(where, parameter, value, fmt::format("value > {}", format_number(bound)));
}

}  // namespace privamp
