#include "verify/divergence/discretised.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

namespace {

// The law at `factor` × its base resolution (itself if it is not discretised).
sim::LawPtr at_resolution(const sim::Law& law, int factor) {
  const sim::Discretisation* d = law.discretisation();
  if (!d) return nullptr;
  if (factor > d->max_factor)
    invalid_input("{}: the error model needs the law at {} x {} cells, beyond its limit; lower cells",
                  d->what, factor, d->cells);
  return d->refine(factor);
}

}  // namespace

Estimate richardson(const Estimate& coarse, const Estimate& middle, const Estimate& fine, int order,
                    const std::string& what) {
  const Estimate* levels[] = {&coarse, &middle, &fine};
  const int infinite = static_cast<int>(std::count_if(std::begin(levels), std::end(levels),
                                                      [](const Estimate* e) { return std::isinf(e->value); }));
  // The discretised laws (grid propagations, discretised generators) come from Gaussian noise or a diffusion: their
  // densities are positive wherever the other law's are, and every divergence between them is finite. An infinite
  // value is a density that underflowed on the grid (noise narrow against the domain, a map that sends the mass to
  // the ends), not a result.
  if (infinite > 0)
    throw NumericalError(fmt::format("{}: the value is infinite at {} of 3 resolutions: a law's density underflows the double "
                                     "range on the grid where the other's does not (the divergence of the laws themselves is "
                                     "finite); widen the noise, shrink the domain, or use the certified engine",
                                     what, infinite));
  const double r = std::ldexp(1.0, order);
  const double v1 = coarse.value, v2 = middle.value, v4 = fine.value;
  const double e1 = coarse.abs_error(), e2 = middle.abs_error(), e4 = fine.abs_error();
  const double d1 = v1 - v2, d2 = v2 - v4;
  const double noise = e1 + e2 + e4;
  double value, discretisation, numerical;
  std::string how;
  if (std::fabs(d2) <= noise) {
    // The finer pair agrees within the engines' bars: nothing to extrapolate, and the change from N to 2N bounds
    // what is left.
    value = v4;
    numerical = e4;
    discretisation = std::max(std::fabs(d1), std::fabs(d2));
    how = "converged within the engine's error bars";
  } else {
    const double ratio = d1 / d2;
    const double observed = ratio > 0 ? std::log2(ratio) : -std::numeric_limits<double>::infinity();
    if (!(std::fabs(observed - order) <= 0.5))
      throw NumericalError(fmt::format(
          "{}: observed order of convergence {} (values {:.12g}, {:.12g}, {:.12g}) does not match the method's order "
          "{}: the grid is not fine enough for this law; raise cells",
          what, ratio > 0 ? fmt::format("{:.2f}", observed) : std::string("undefined (the differences change sign)"),
          v1, v2, v4, order));
    value = v4 - d2 / (r - 1);
    const double previous = v2 - d1 / (r - 1);
    discretisation = kRichardsonSafety * std::fabs(value - previous) + std::fabs(d2) * std::fabs(1 / (ratio - 1) - 1 / (r - 1));
    numerical = (r * e4 + e2) / (r - 1);
    how = fmt::format("observed order {:.2f}, Richardson", observed);
  }
  Estimate e = Estimate::from_value(value, numerical + discretisation, ErrorKind::discretised,
                                    fmt::format("{} ({}) + {}", what, how, fine.method));
  e.numerical_error = numerical;
  e.discretisation_error = discretisation;
  e.budget = fine.budget;  // the finest resolution's parts, scaled to the extrapolation's numerical error
  double own = 0;
  for (const ErrorTerm& t : e.budget) own += t.amount;
  for (ErrorTerm& t : e.budget) {
    t.amount = own > 0 ? t.amount * (numerical / own) : 0;
    t.log_amount = std::log(t.amount);
  }
  std::erase_if(e.budget, [](const ErrorTerm& t) { return !(t.amount > 0); });
  if (e.budget.empty()) e.add_error(ErrorPart::quadrature, numerical);
  e.add_error(ErrorPart::discretisation, discretisation);
  e.work = coarse.work + middle.work + fine.work;
  return e;
}

std::vector<Estimate> discretised_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                              const PlainDivergences& plain) {
  const sim::Discretisation* dp = p.discretisation();
  const sim::Discretisation* dq = q.discretisation();
  const sim::Discretisation& d = dp ? *dp : *dq;
  const int order = std::min(dp ? dp->order : 1 << 20, dq ? dq->order : 1 << 20);
  // The laws at every resolution are built before any is computed, the finest first: a law refused at four times
  // the cells (a convolution whose grid operand has too many pieces) is refused before the coarser ones' work.
  std::vector<std::pair<sim::LawPtr, sim::LawPtr>> laws(3);
  for (int k = 2; k >= 0; --k) laws[static_cast<std::size_t>(k)] = {at_resolution(p, 1 << k), at_resolution(q, 1 << k)};
  std::vector<std::vector<Estimate>> at;
  for (const auto& [pf, qf] : laws) at.push_back(plain(pf ? *pf : p, qf ? *qf : q, quantities));
  const std::string what = fmt::format("{} at {}, {} and {} cells", d.what, d.cells, 2 * d.cells, 4 * d.cells);
  std::vector<Estimate> out;
  for (std::size_t k = 0; k < quantities.size(); ++k) out.push_back(richardson(at[0][k], at[1][k], at[2][k], order, what));
  return out;
}

}  // namespace privamp::verify
