#include "verify/divergence/engine_entry.hpp"
#include "verify/divergence/certified.hpp"

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "verify/divergence/certified/internal.hpp"
#include "verify/divergence/composition.hpp"

namespace privamp::verify {

namespace certified_detail {

Certified compute(const sim::Law& p, const sim::Law& q, const Quantity& quantity, slong prec, const Deadline& deadline) {
  const Pair pr = read_pair(p, q, prec);
  // Inputs known only to their last place (a stored mixture weight) make the integrand itself a ball of that
  // relative width: asking the quadrature for more digits than that only spends its evaluation budget.
  bool inexact = false;
  for (const Side* s : {&pr.p, &pr.q})
    for (const Piece& pc : s->pieces) inexact = inexact || mag_cmp_2exp_si(arb_radref(pc.log_w.get()), -prec / 2) > 0;
  // p^α amplifies a weight's relative uncertainty (2^-53) α-fold.
  const double amplification = quantity.kind == Quantity::Kind::renyi ? std::max(1.0, quantity.parameter) : 1.0;
  const long goal = inexact ? std::min<long>(prec - 24, 49 - static_cast<long>(std::ceil(std::log2(amplification))))
                            : std::min<long>(prec - 24, kGoalBits);
  // A Laplace sum's polynomial factor grows off the real line, and P^α with it: the integrator's work grows with α
  // (n = 2: 0.4 s at α = 256, 10 s at 512). Refused above 256, before any work.
  if (quantity.kind == Quantity::Kind::renyi && quantity.parameter > kMaxSumOrder)
    for (const Side* side : {&pr.p, &pr.q})
      for (const Piece& pc : side->pieces)
        if (pc.sum())
          throw Refused(fmt::format("Renyi order {} above {} for a Laplace sum (the work grows with the order)",
                                    format_number(quantity.parameter), kMaxSumOrder));
  // Rényi and KL are integrals asked for `goal` bits; the hockey-stick's sign subdivision and R_inf's supremum
  // search resolve finer with more precision, so only the integrals are input-limited.
  auto limited = [inexact](Certified c) {
    c.input_limited = inexact;
    return c;
  };
  switch (quantity.kind) {
    case Quantity::Kind::hockey_stick: return hockey_stick(pr, quantity.parameter, goal, prec, deadline);
    case Quantity::Kind::tv: return hockey_stick(pr, 0, goal, prec, deadline);
    case Quantity::Kind::renyi: return limited(renyi(p, q, pr, quantity.parameter, goal, prec, deadline));
    case Quantity::Kind::kl: return limited(kl(pr, goal, prec, deadline));
    case Quantity::Kind::renyi_inf:
      for (const Side* side : {&pr.p, &pr.q})
        for (const Piece& pc : side->pieces)
          if (pc.sum())
            throw Refused("R_inf of a Laplace sum is not covered (its supremum is approached at infinity, where the "
                          "tail bounds of log G are one-sided)");
      return renyi_inf(pr, prec, deadline);
  }
  throw Refused("unknown quantity");
}

bool is_finite_chain(const sim::Law& law) {
  const sim::ExactForm form = law.exact_form();
  const auto* f = std::get_if<sim::form::Finite>(&form);
  return f && f->source && f->source->K.size() > 0;
}

Estimate enclosure_estimate(const Ball& v, slong used, bool bounded) {
  Estimate e;
  e.error_kind = ErrorKind::certified;
  const double lower = std::max(0.0, lower_d(v));
  double upper = upper_d(v);
  if (bounded) upper = std::min(1.0, upper);
  upper = std::max(upper, lower);
  // Logs of the ends, from the balls themselves: exact far below the double range.
  auto log_of = [&](bool upper_end) {
    Ball end;
    if (upper_end) arb_get_ubound_arf(arb_midref(end.get()), v.get(), used);
    else arb_get_lbound_arf(arb_midref(end.get()), v.get(), used);
    if (arf_sgn(arb_midref(end.get())) <= 0) return -kInf;
    Ball l;
    arb_log(l.get(), end.get(), used);
    return upper_end ? upper_d(l) : lower_d(l);
  };
  const double log_lower = log_of(false), log_upper = bounded ? std::min(0.0, log_of(true)) : log_of(true);
  e.set_ends(lower, log_lower, upper, log_upper);
  e.add_error(ErrorPart::enclosure, (upper - lower) / 2);
  e.set_value(mid_d(v));
  // A value below every double: the middle of the log ends (an exact zero where the lower end is 0).
  if (e.value == 0 && std::isfinite(log_lower)) e.set_log_value(log_lower + (log_upper - log_lower) / 2);
  return e;
}

// Arb keeps per-thread caches (constants, exp tables): released when a thread that used them ends.
void release_caches_at_thread_exit() {
  thread_local struct FlintCaches {
    ~FlintCaches() { flint_cleanup(); }
  } caches;
  (void)caches;
}

}  // namespace certified_detail

bool certified_reads_chain(const sim::Law& p, const sim::Law& q) {
  return certified_detail::is_finite_chain(p) || certified_detail::is_finite_chain(q);
}

std::optional<std::string> certified_refusal(const sim::Law& p, const sim::Law& q) {
  using namespace certified_detail;
  release_caches_at_thread_exit();
  if (const auto chains = p.chain_forms_with(q)) return certified_chain_refusal(chains->first, chains->second);
  if (is_composition(p) || is_composition(q)) {
    try {
      return certified_composition_refusal(release_pairs(p, q));
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
  }
  try {
    read_pair(p, q, 64);
  } catch (const Refused& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

Estimate certified_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                              const CertifiedOptions& options) {
  using namespace certified_detail;
  if (const auto chains = p.chain_forms_with(q)) return certified_chain_divergence(chains->first, chains->second, quantity, options);
  const Deadline deadline(options.seconds);
  const long cap = is_finite_chain(p) || is_finite_chain(q) ? std::min(16 * options.max_precision, 65536L) : options.max_precision;
  std::optional<Certified> best;
  std::optional<Ball> previous;
  slong used = 0;
  for (slong prec = 128;; prec *= 2) {
    Certified r;
    try {
      r = compute(p, q, quantity, prec, deadline);
    } catch (const Refused& e) {
      if (best) break;  // a higher precision ran out of budget: the enclosure already found stands
      throw NumericalError(fmt::format("certified engine: {} ({} between {} and {})", e.what(), quantity.label(),
                                       p.brief(), q.brief()));
    }
    used = prec;
    if (r.infinite) {
      Estimate inf = Estimate::infinite("certified (Arb): +inf (an atom or a region that nu does not charge, or a tail "
                                        "that is not integrable)");
      inf.error_kind = ErrorKind::certified;
      return inf;
    }
    best = std::move(r);
    if (!arb_is_finite(best->value.get())) {
    } else if (arb_rel_accuracy_bits(best->value.get()) >= kGoodBits || arb_is_zero(best->value.get())) {
      break;
    } else if (arb_is_nonnegative(best->value.get()) && upper_d(best->value) == 0 &&
               quantity.kind != Quantity::Kind::renyi_inf) {
      break;  // [0, below the double range]: nothing more to resolve in the output
    }
    // The radius did not halve with twice the precision: what remains comes from the inputs (a weight's last
    // place) or from the tails, and more bits will not narrow it.
    if (previous && arb_is_finite(best->value.get())) {
      mag_t half;
      mag_init(half);
      mag_mul_2exp_si(half, arb_radref(previous->get()), -1);
      const bool stalled = mag_cmp(arb_radref(best->value.get()), half) > 0;
      mag_clear(half);
      if (stalled) break;
    }
    // Twice the precision would ask the same of each integral and only shrink the rounding, already far below the
    // inputs' share: what the inputs allow is found.
    if (best->input_limited && arb_is_finite(best->value.get())) break;
    previous = best->value;
    if (2 * prec > cap || deadline.work() * 3 > deadline.budget()) break;
  }
  Ball v = best->value;
  if (!arb_is_finite(v.get()))
    throw NumericalError(fmt::format("certified engine: no finite enclosure of {} at {} bits ({} vs {})", quantity.label(),
                                     used, p.brief(), q.brief()));
  // Divergences are ≥ 0 and hockey-stick/TV ≤ 1.
  Estimate e = enclosure_estimate(v, used, quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv);
  // (Its width relative to the upper end, in logs: an upper end beyond the double range, [0, e^2441977] for the KL
  // of Gaussians 1e5 apart, is as wide as [0, 1].)
  const double rel = e.log_upper() > -std::numeric_limits<double>::infinity() ? -std::expm1(e.log_lower() - e.log_upper()) : 0;
  // Too wide is refused, except an enclosure [0, u] with u tiny: a value that may be exactly 0 (two identical laws),
  // bounded above (relative 2^-50 of the scale of a probability).
  if (rel > 0.5 && e.upper > 1e-30 && !(e.lower == 0 && e.upper <= 1e-15))
    throw NumericalError(fmt::format("certified engine: the enclosure {} of {} is too wide at {} bits "
                                     "within the budget ({} vs {})", interval_text(e, 6), quantity.label(), used,
                                     p.brief(), q.brief()));
  e.method = fmt::format("certified (Arb ball arithmetic, {} bits{}{})", used, best->detail.empty() ? "" : ", ",
                         best->detail);
  e.work = used;
  return e;
}

// The engine's entry (engine_entry.hpp): asked for by name; the default engine consults it as the arbiter of its
// estimates (engines.cpp), not as a route.
extern const EngineEntry kCertifiedEngine{
    Engine::certified, "certified", "laws with exact forms (certified.hpp): enclosures in ball arithmetic; it refuses the rest itself",
    false, [](const sim::Law&, const sim::Law&) { return std::string(); },
    [](const ValueCall& c) -> std::optional<Estimate> {
      CertifiedOptions co;
      co.seconds = c.options.certified_seconds;
      return certified_divergence(c.p, c.q, c.quantity, co);
    },
    "", false};

}  // namespace privamp::verify

