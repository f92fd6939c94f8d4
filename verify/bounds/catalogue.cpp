#include "verify/bounds/catalogue.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "verify/bounds/declared.hpp"

namespace privamp::verify {

std::string to_string(Direction d) {
  switch (d) {
    case Direction::upper: return "upper";
    case Direction::lower: return "lower";
    case Direction::identity: return "identity";
  }
  return "?";
}

extern const char* const kCatalogueToml;  // verify/bounds/catalogue.toml, compiled in

const std::vector<BoundEntry>& bound_catalogue() {
  static const std::vector<BoundEntry> catalogue = [] {
    // The closed forms as [[bound]] tables, then the entries that need an algorithm or an exact value of their own.
    std::vector<BoundEntry> all = read_bound_tables(kCatalogueToml, "verify/bounds/catalogue.toml");
    for (BoundEntry& e : all) e.declared_in.clear();  // built in
    add_coupling_bounds(all);
    add_diffusion_bounds(all);
    add_subsampling_shuffling_bounds(all);
    add_repeated_noise_bounds(all);
    add_property_bounds(all);
    return all;
  }();
  return catalogue;
}

const std::map<std::string, ExactRoute>& exact_routes() {
  static const std::map<std::string, ExactRoute> routes = [] {
    std::map<std::string, ExactRoute> all;
    add_diffusion_routes(all);
    add_shuffling_routes(all);
    return all;
  }();
  return routes;
}

std::optional<Quantity::Kind> BoundEntry::bounded_divergence() const {
  if (const DivergenceCheck* d = divergence()) return d->quantity;
  if (const ValueCheck* v = value()) return v->divergence;
  return std::nullopt;
}

std::string BoundEntry::kind_name() const {
  if (property()) return "a property";
  if (const ValueCheck* v = value()) return v->divergence ? "a value or divergence bound" : "a value bound";
  return "a divergence bound";
}

void add_kernel_constants(const sim::FiniteKernel& kernel, Params& p) {
  const auto m = sim::mixing_coefficients(kernel);
  p.numbers["gamma_tv"] = m.dobrushin;
  p.numbers["gamma_doeblin"] = m.doeblin;
  p.numbers["gamma_ultra"] = m.ultra_mixing;
  p.numbers["gamma_hs_tilde"] = sim::dobrushin_tilde(kernel, p.at("eps"), p.at("delta"));
}

std::function<std::optional<std::string>(const Params&)> requires_positive(std::string name) {
  return [name = std::move(name)](const Params& p) -> std::optional<std::string> {
    if (!(p.at(name) > 0)) return "needs " + name + " > 0";
    return std::nullopt;
  };
}

namespace {
[[noreturn]] void unknown_id(const std::string& id, const DeclaredBounds* declared) {
  std::vector<std::string> ids;
  for (const BoundEntry& b : bound_catalogue()) ids.push_back(b.id);
  if (declared)
    for (const BoundEntry& b : *declared) ids.push_back(b.id);
  invalid_input("unknown theorem ID '{}' ({}known: {})", escape::plain(id), did_you_mean(id, ids), fmt::join(ids, ", "));
}
}  // namespace

const BoundEntry* built_in_bound(const std::string& id) {
  for (const BoundEntry& b : bound_catalogue())
    if (b.id == id) return &b;
  return nullptr;
}

const BoundEntry& find_bound(const std::string& id) {
  if (const BoundEntry* b = built_in_bound(id)) return *b;
  unknown_id(id, nullptr);
}

const BoundEntry& find_bound(const std::string& id, const DeclaredBounds& declared) {
  for (const BoundEntry& b : declared)
    if (b.id == id) return b;
  for (const BoundEntry& b : bound_catalogue())
    if (b.id == id) return b;
  unknown_id(id, &declared);
}

std::string declared_at(const BoundEntry& e) {
  return e.declared_in.empty() ? "built in" : fmt::format("{}:{}", e.declared_in, e.declared_line);
}

std::optional<std::string> BoundEntry::outside(const Params& p) const {
  for (const auto& [name, value] : p.numbers)
    if (std::isinf(value))
      return fmt::format("{} = {}: unbounded as certified (the formula it is derived from jumps or kinks as written), so the "
                         "theorem's hypothesis on {} does not hold",
                         name, value > 0 ? "inf" : "-inf", name);
  return not_applicable ? not_applicable(p) : std::nullopt;
}

}  // namespace privamp::verify
