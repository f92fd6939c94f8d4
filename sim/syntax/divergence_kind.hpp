// The divergences between two laws, with the one name table of the program: the names written in formulas, case
// files, the command line and the labels of rows (renyi, kl, renyi_inf, hockey_stick, tv).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace privamp::sim {

enum class Divergence { renyi, kl, renyi_inf, hockey_stick, tv };

inline constexpr std::pair<Divergence, const char*> kDivergenceNames[] = {{Divergence::renyi, "renyi"},
                                                                          {Divergence::kl, "kl"},
                                                                          {Divergence::renyi_inf, "renyi_inf"},
                                                                          {Divergence::hockey_stick, "hockey_stick"},
                                                                          {Divergence::tv, "tv"}};

inline std::string divergence_name(Divergence d) {
  for (const auto& [k, name] : kDivergenceNames)
    if (k == d) return name;
  return "?";
}

inline std::optional<Divergence> parse_divergence(std::string_view name) {
  for (const auto& [k, n] : kDivergenceNames)
    if (n == name) return k;
  return std::nullopt;
}

// renyi and hockey_stick take an order (alpha, eps); the others none.
inline bool has_order(Divergence d) { return d == Divergence::renyi || d == Divergence::hockey_stick; }

}  // namespace privamp::sim
