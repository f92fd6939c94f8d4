#include "numerics/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/escape.hpp"

namespace privamp {

bool outside_double_range(std::errc ec, double x) {
  return ec == std::errc::result_out_of_range || (ec == std::errc() && x != 0 && std::fabs(x) < std::numeric_limits<double>::min());
}

std::string format_number(double x) { return fmt::format("{}", plain_zero(x)); }

std::string abbreviate(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  std::size_t cut = max_chars * 3 / 4;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return fmt::format("{}… ({} characters in all)", text.substr(0, cut), text.size());
}

void raise_invalid(std::string_view message) { throw InvalidArgument(escape::plain(message, true)); }

void throw_invalid(std::string_view where, std::string_view parameter, double value, std::string_view allowed) {
  invalid_input("{}: parameter '{}' = {} is out of range (allowed: {})", where, parameter, format_number(value), allowed);
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

void check_local_epsilon(std::string_view where, std::string_view parameter, double value) {
  if (!(value >= 0 && value <= kMaxLocalEpsilon))
    throw_invalid(where, parameter, value, "0 <= value <= 700 (the flip probability 1/(e^eps0 + k - 1) must stay a normal double)");
}

void check_probability(std::string_view where, std::string_view parameter, double value) {
  if (!(value >= 0 && value <= 1)) throw_invalid(where, parameter, value, "0 <= value <= 1");
}

void check_greater(std::string_view where, std::string_view parameter, double value, double bound) {
  if (!(value > bound) || std::isnan(value))
    throw_invalid(where, parameter, value, fmt::format("value > {}", format_number(bound)));
}

namespace {

// Optimal string alignment distance (insertions, deletions, substitutions and adjacent transpositions), ignoring
// case; names are short (a few dozen letters at most are compared: longer words are not misspellings of ours).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 64) return "";
  // Scores in half edits: a name the word begins scores 1/2, nearer than any one-letter slip.
  const std::size_t limit = 2 * std::max<std::size_t>(1, word.size() / 3);
  std::size_t best = limit + 1;
  std::vector<std::string> nearest;
  for (const std::string& c : candidates) {
    if (c.size() > 64) continue;
    std::size_t d = 2 * edit_distance(word, c);
    const bool begins = word.size() >= 3 && c.size() > word.size() && edit_distance(word, c.substr(0, word.size())) == 0;
    if (begins) d = std::min<std::size_t>(d, 1);
    if (d > limit || d > best) continue;
    if (d < best) best = d, nearest.clear();
    if (std::find(nearest.begin(), nearest.end(), c) == nearest.end()) nearest.push_back(c);
  }
  if (nearest.empty() || nearest.size() > 3) return "";
  std::vector<std::string> quoted;
  for (const auto& n : nearest) quoted.push_back("'" + n + "'");
  return fmt::format("did you mean {}? ", fmt::join(quoted, " or "));
}

}  // namespace privamp
