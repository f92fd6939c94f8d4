#include "sim/laws/composition.hpp"

#include <climits>
#include <numeric>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/laws/spec.hpp"

namespace privamp::sim {

Composition::Composition(std::vector<Factor> factors) : factors_(std::move(factors)) {
  if (factors_.empty()) invalid_input("product: at least one law is needed");
  if (static_cast<int>(factors_.size()) > kMaxFactors)
    throw_invalid("product", "number of factors", static_cast<double>(factors_.size()),
                  fmt::format("at most {} factors (write repeated releases as power(law, T))", kMaxFactors));
  double releases = 0, dimension = 0;
  for (const Factor& f : factors_) {
    if (!f.law) invalid_input("product: a factor is not a law");
    if (dynamic_cast<const Composition*>(f.law.get())) invalid_input("composition: factors must be flattened");
    if (f.count < 1) throw_invalid("power", "T", static_cast<double>(f.count), "a positive integer");
    releases += static_cast<double>(f.count);
    dimension += static_cast<double>(f.count) * f.law->dimension();
  }
  if (releases > static_cast<double>(kMaxCount))
    throw_invalid("power", "T", releases, fmt::format("1 <= T <= {} releases in all", kMaxCount));
  if (dimension > static_cast<double>(INT_MAX))
    throw_invalid("power", "T", releases, fmt::format("a composition of dimension <= {}", INT_MAX));
  releases_ = static_cast<long>(releases);
  dimension_ = static_cast<int>(dimension);
}

std::string Composition::expression() const {
  auto power = [](const Factor& f) { return fmt::format("power({}, {})", f.law->expression(), f.count); };
  if (factors_.size() == 1) return power(factors_.front());
  std::vector<std::string> parts;
  for (const Factor& f : factors_) parts.push_back(power(f));
  return fmt::format("product({})", fmt::join(parts, ", "));
}

namespace {
[[noreturn]] void no_line_law(const Composition& c) {
  invalid_input("{}", c.brief() +
                        ": a composition is a law of several releases, with no density on the line; compare it with a "
                        "composition of the same structure (power(mu, T) against power(nu, T))");
}
}  // namespace

double Composition::log_density(double) const { no_line_law(*this); }
Shape Composition::shape() const { no_line_law(*this); }
void Composition::sample_into(Rng&, std::span<double>) const { no_line_law(*this); }

LawPtr compose_product(const std::vector<LawPtr>& laws) {
  std::vector<Composition::Factor> factors;
  for (const LawPtr& law : laws) {
    if (const auto* c = dynamic_cast<const Composition*>(law.get()))
      factors.insert(factors.end(), c->factors().begin(), c->factors().end());
    else
      factors.push_back({law, 1});
  }
  // One release of one law is that law (power(mu, 1) against power(nu, 1) had no density on the line for the
  // engines that ask one, where mu against nu has)
  if (factors.size() == 1 && factors.front().count == 1) return factors.front().law;
  return std::make_shared<Composition>(std::move(factors));
}

LawPtr compose_power(const LawPtr& law, long count) {
  if (count < 1 || count > Composition::kMaxCount)
    throw_invalid("power", "T", static_cast<double>(count), fmt::format("an integer, 1 <= T <= {}", Composition::kMaxCount));
  if (const auto* c = dynamic_cast<const Composition*>(law.get())) {
    std::vector<Composition::Factor> factors = c->factors();
    for (auto& f : factors) {
      const double n = static_cast<double>(f.count) * static_cast<double>(count);
      if (n > static_cast<double>(Composition::kMaxCount))
        throw_invalid("power", "T", n, fmt::format("1 <= T <= {} releases in all", Composition::kMaxCount));
      f.count *= count;
    }
    return std::make_shared<Composition>(std::move(factors));
  }
  if (count == 1) return law;  // (one release of a law is the law)
  return std::make_shared<Composition>(std::vector<Composition::Factor>{{law, count}});
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec power_law_spec() {
  using K = ParamKind;
  return {"power", "T independent releases of a law, law^(x T): composed with power(nu, T) it gives the T-fold composition",
    {{"law", K::law, std::nullopt, "the law of one release"},
    ParamSpec{"T", K::integer, std::nullopt, "number of releases, 1 <= T <= 10^7"}.within(Range::between(1, Composition::kMaxCount))},
    "power(mix(q=0.01, gaussian(0, 1), gaussian(1, 1)), 1000)",
    [](const Args& a) {
      const double t = a.number("T");
      if (!(t >= 1 && t <= static_cast<double>(Composition::kMaxCount) && t == std::floor(t)))
        throw_invalid("power", "T", t, fmt::format("an integer, 1 <= T <= {}", Composition::kMaxCount));
      return compose_power(a.law("law"), static_cast<long>(t));
    },
    /*variadic=*/false, [](const Args& a) { return a.dimensions("law").front() * a.integer("T"); }};
}
PRIVAMP_LAW(170, power_law_spec);

LawSpec product_law_spec() {
  using K = ParamKind;
  return {"product", "releases of different laws in sequence: product(power(a, 150), power(b, 20)) (heterogeneous composition)",
    {{"laws", K::laws, std::nullopt, "the laws released, in order (powers or single laws), at most 64"}},
    "product(power(gaussian(1, 1), 150), power(gaussian(1, 2), 20))",
    [](const Args& a) { return compose_product(a.laws("laws")); },
    /*variadic=*/true, [](const Args& a) {
      const std::vector<long> d = a.dimensions("laws");
      return std::accumulate(d.begin(), d.end(), 0L);
    }};
}
PRIVAMP_LAW(180, product_law_spec);

}  // namespace privamp::sim
