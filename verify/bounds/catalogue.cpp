#include "verify/bounds/catalogue.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

std::string to_string(Direction d) {
  switch (d) {
    case Direction::upper: return "upper";
    case Direction::lower: return "lower";
    case Direction::equal: return "equal";
  }
  return "?";
}

const std::vector<BoundEntry>& bound_catalogue() {
  static const std::vector<BoundEntry> catalogue = [] {
    std::vector<BoundEntry> all;
    add_mixing_bounds(all);
    add_coupling_bounds(all);
    add_diffusion_bounds(all);
    add_subsampling_shuffling_bounds(all);
    add_repeated_noise_bounds(all);
    add_property_bounds(all);
    return all;
  }();
  return catalogue;
}

std::function<std::optional<std::string>(const Params&)> requires_positive(std::string name) {
  return [name = std::move(name)](const Params& p) -> std::optional<std::string> {
    if (!(p.at(name) > 0)) return "needs " + name + " > 0";
    return std::nullopt;
  };
}

const BoundEntry& find_bound(const std::string& id) {
  for (const BoundEntry& b : bound_catalogue())
    if (b.id == id) return b;
  std::vector<std::string> ids;
  for (const BoundEntry& b : bound_catalogue()) ids.push_back(b.id);
  throw InvalidArgument(fmt::format("unknown theorem ID '{}' (known: {})", id, fmt::join(ids, ", ")));
}

}  // namespace privamp::verify
