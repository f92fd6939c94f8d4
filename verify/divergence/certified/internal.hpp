// The certified engine's parts (verify/divergence/certified.hpp says what it computes): Arb balls, the laws in exact
// terms (pieces and atoms), the integrands, the enclosures of the privacy loss, the tails and the quantities. One
// header for the folder; nothing outside verify/divergence/certified* includes it but the tests of its parts.
//   laws.cpp         reading laws into pieces (Gaussian, Laplace, Laplace sums) and atoms; masses; the pair
//   integrands.cpp   the integrands of R_alpha, KL and HS on a segment, and the rigorous quadrature
//   loss.cpp         enclosures of the privacy loss L - eps and its derivative on an interval
//   tails.cpp        closed-form bounds beyond the integration window
//   quantities.cpp   HS/TV, R_alpha, KL and R_inf from the above
#pragma once

#include <acb.h>
#include <acb_calc.h>
#include <arb.h>
#include <arb_hypgeom.h>
#include <arb_mat.h>
#include <arb_poly.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "numerics/constants.hpp"
#include "sim/laws/law.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify::certified_detail {

constexpr long kMaxPieces = 256;            // density pieces of one law: every evaluation visits each
constexpr long kMaxChainStates = 64;        // μK^t in balls costs states³·log t products at up to 65,536 bits
constexpr long kMaxEvaluations = 400'000;   // sign / supremum subdivision steps per value
constexpr int kMaxExpansions = 48;          // window doublings while a tail is not yet negligible
constexpr long kGoodBits = 45;              // relative accuracy at which the precision stops doubling
constexpr double kMaxSumOrder = 1024;       // Rényi orders of Laplace sums (their work grows with the order)
constexpr long kGoalBits = 72;              // relative accuracy asked of each integral (the output prints 12 digits)

// RAII wrappers of Arb's real and complex balls.
class Ball {
 public:
  Ball() { arb_init(x_); }
  explicit Ball(double d) {
    arb_init(x_);
    arb_set_d(x_, d);
  }
  Ball(const Ball& o) {
    arb_init(x_);
    arb_set(x_, o.x_);
  }
  Ball(Ball&& o) noexcept {
    arb_init(x_);
    arb_swap(x_, o.x_);
  }
  Ball& operator=(const Ball& o) {
    arb_set(x_, o.x_);
    return *this;
  }
  Ball& operator=(Ball&& o) noexcept {
    arb_swap(x_, o.x_);
    return *this;
  }
  ~Ball() { arb_clear(x_); }
  arb_ptr get() { return x_; }
  arb_srcptr get() const { return x_; }

 private:
  arb_t x_;
};

class Complex {
 public:
  Complex() { acb_init(z_); }
  Complex(const Complex&) = delete;
  Complex& operator=(const Complex&) = delete;
  ~Complex() { acb_clear(z_); }
  acb_ptr get() { return z_; }
  acb_srcptr get() const { return z_; }

 private:
  acb_t z_;
};

// An end of a ball as a double, rounded outwards.
inline double end_d(const Ball& b, bool upper) {
  arf_t t;
  arf_init(t);
  if (upper) arb_get_ubound_arf(t, b.get(), 64);
  else arb_get_lbound_arf(t, b.get(), 64);
  const double d = arf_get_d(t, upper ? ARF_RND_CEIL : ARF_RND_FLOOR);
  arf_clear(t);
  return d;
}
inline double lower_d(const Ball& b) { return end_d(b, false); }
inline double upper_d(const Ball& b) { return end_d(b, true); }
// x·d or x/d for a double d (exact as a ball).
inline void mul_d(arb_ptr r, arb_srcptr x, double d, slong prec, bool divide = false) {
  arb_t t;
  arb_init(t);
  arb_set_d(t, d);
  if (divide) arb_div(r, x, t, prec);
  else arb_mul(r, x, t, prec);
  arb_clear(t);
}
inline void div_d(arb_ptr r, arb_srcptr x, double d, slong prec) { mul_d(r, x, d, prec, true); }
inline double mid_d(const Ball& b) { return arf_get_d(arb_midref(b.get()), ARF_RND_NEAR); }

// A double with a radius of one unit in the last place: a stored number that was rounded once.
inline Ball with_ulp(double d) {
  Ball b(d);
  if (d != 0) {
    mag_t r;
    mag_init(r);
    mag_set_d(r, std::fabs(std::nextafter(d, kInf) - d));
    arb_add_error_mag(b.get(), r);
    mag_clear(r);
  }
  return b;
}


// w·f(x) on [lo, hi] (the density restricted, not renormalised), f a Gaussian N(m, s²) or a Laplace(m, s), or
// a sum of independent Laplace(0, b_j) shifted to m: f = e^{−t} G(t)/s with t = |x − m|/s, s the largest scale,
//   equal scales (n of them):  G(t) = P(t) = Σ_k c_k t^k, c_k = (2n−2−k)! 2^k / ((n−1)! 2^{2n−1} k! (n−1−k)!);
//   distinct scales:           G(t) = Σ_j a_j e^{−κ_j t}, a_j = C_j s/(2 b_j), κ_j = s/b_j − 1,
//                              C_j = Π_{k≠j} b_j²/(b_j² − b_k²) (partial fractions; signed).
// All exact rationals in balls. The sum's density is log-concave (a convolution of log-concave densities), so
// log G is concave on t ≥ 0, and G increases there ((log f)' ≥ −1/s: the heaviest term's log-derivative bounds it).
struct Piece {
  bool laplace = false;
  std::vector<double> scales;  // a Laplace sum's scales (laplace is then set too); empty otherwise
  Ball m;          // centre (a ball: a shifted centre need not be a double)
  double m_d = 0;  // centre rounded, for breakpoints
  double s = 1;
  double lo = -kInf, hi = kInf;
  Ball log_w;
  // Set by finish(): s² (exact), and log_w minus the log of the normaliser (s√(2π) or 2s; s for a Laplace sum).
  Ball s2, log_c;
  // Set by finish() for a Laplace sum: P, P' and E (∫_t^∞ e^{−u}P(u) du = e^{−t} E(t)); or the κ_j and the
  // coefficients a_j, −κ_j a_j and a_j/(1 + κ_j) of G, G' and E.
  std::vector<Ball> poly, dpoly, tail, amp, damp, tamp, kappa;
  std::uint64_t id = 0;  // a Laplace sum's G, set by finish(): distinct for every G computed (a cache key)
  bool sum() const { return !scales.empty(); }
};

struct Side {
  std::vector<Piece> pieces;
  std::map<double, Ball> atoms;  // location → mass
};

class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Active {
  const Piece* piece;
  int sign;  // Laplace: +1 right of the centre, −1 left
};

using Segment = std::vector<Active>;

enum class Integrand { renyi, kl, hs };

// One value's budget (CertifiedOptions::seconds): made where the computation of a value starts, passed to every
// function of the engine whose loops may run long, which call check(). The budget is counted in units of work
// (integrand evaluations, sign tests, loop steps: kWorkPerSecond of them per second of budget on a typical core), not
// in wall-clock time, so that what is answered, and at which precision, does not depend on the machine's load: two
// runs give the same enclosure. An integrand evaluation counts more as its precision grows (prec/128 units: at 4096
// bits one costs tens of times one at 128). A wall clock at kWallFactor times the budget is a safety net only, far
// enough that a loaded machine (a third of a core) does not reach it first: at 8 times, a T5 row of the paper
// figures got a wider enclosure whenever the machine was busy. It also registers the thread's Arb caches for
// release when the thread ends.
class Deadline {
 public:
  static constexpr double kWorkPerSecond = 150000, kWallFactor = 40;
  explicit Deadline(double seconds);
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  void check() const;  // counts one unit; Refused once the budget is spent; Interrupted on the user's interrupt
  void spend(long units) const { work_.fetch_add(units, std::memory_order_relaxed); }
  long work() const { return work_.load(std::memory_order_relaxed); }
  long budget() const { return budget_; }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_, end_;
  long budget_;
  mutable std::atomic<long> work_{0};
};

struct Job {
  Integrand kind;
  const Segment* p;
  const Segment* q;
  Ball alpha, beta;  // renyi: α and 1 − α
  Ball exp_eps;      // hs: e^ε
  Ball shift;        // renyi: the integrand is divided by e^C
  const Deadline* deadline;
  Active ref() const { return q->empty() ? p->front() : q->front(); }
};

struct Quad {
  Ball a, b, c;  // a x² + b x + c
};

struct Tail {
  enum class Kind { bounded, infinite_divergence, unbounded } kind = Kind::bounded;
  Ball value;
};

// sup over [B, ∞) of log p − log q (an upper bound), nullopt if unbounded, −inf encoded by `none` when p vanishes.
struct LossSup {
  bool p_vanishes = false;
  bool q_vanishes = false;
  bool infinite = false;   // L → +∞ along the tail (certified)
  std::optional<Ball> sup;  // an upper bound of L on the tail
};

struct Pair {
  Side p, q;
  double s_min = kInf, s_max = 0;
  std::vector<double> breakpoints;  // kinks, support ends, sorted
  double lo = kInf, hi = -kInf;     // span of centres and breakpoints
};

struct Certified {
  Ball value;
  bool infinite = false;
  std::string detail;
  // The inputs carry their own radius (a weight known to its last place): each integral's goal is set by it, not
  // by the precision, and the rounding at prec bits is 2^-(prec/2) of the inputs' share of the width.
  bool input_limited = false;
};

// Two active pieces whose log-densities differ by a constant on the segment: Laplaces of one scale on one side of
// their centres, or Laplace sums of one shape (the same G) with one centre.
inline bool same_shape(const Active& a, const Active& r) {
  const Piece& A = *a.piece;
  const Piece& R = *r.piece;
  if (!A.laplace || !R.laplace || A.s != R.s || a.sign != r.sign) return false;
  if (!A.sum() && !R.sum()) return true;
  return A.sum() && R.sum() && A.scales == R.scales && arb_equal(A.m.get(), R.m.get());
}


void laplace_sum_polynomials(Piece& pc, slong prec);
void horner(arb_ptr out, const std::vector<Ball>& c, const Ball& t, slong prec);
void horner(acb_ptr out, const std::vector<Ball>& c, const acb_t t, slong prec);
void g_value(arb_ptr out, const Piece& pc, const Ball& t, slong prec);
void g_value(acb_ptr out, const Piece& pc, const acb_t t, slong prec);
void g_derivative(arb_ptr out, const Piece& pc, const Ball& t, slong prec);
void g_derivative(acb_ptr out, const Piece& pc, const acb_t t, slong prec);
void g_tail(arb_ptr out, const Piece& pc, const Ball& t, slong prec);
void exp_sum(arb_ptr out, const std::vector<Ball>& c, const std::vector<Ball>& kappa, const Ball& t, slong prec);
void exp_sum(acb_ptr out, const std::vector<Ball>& c, const std::vector<Ball>& kappa, const acb_t t, slong prec);
void finish(Piece& pc, slong prec);
std::optional<double> exact_sum(double a, double b);
void add_atom(Side& side, double x, const Ball& mass, slong prec);
Ball piece_mass(const Piece& pc, double a, double b, slong prec);
void finite_atoms(const sim::FiniteSource& source, std::span<const sim::Atom> atoms, const Ball& log_w, double shift,
                  Side& side, slong prec);
std::vector<Ball> binomial_weights(const sim::BinomialWeights& b, std::size_t components, slong prec);
void read_law(const sim::Law& law, const Ball& log_w, double shift, Side& side, slong prec);
Pair read_pair(const sim::Law& p, const sim::Law& q, slong prec);
std::vector<std::pair<double, double>> segments(const Pair& pr, double u, double v);
Segment active_on(const Side& side, double u, double v);
void log_piece(acb_t out, const Active& a, const acb_t z, slong prec, int analytic = 0);
void log_relative(acb_t out, const Active& a, const Active& r, const acb_t z, slong prec, int analytic = 0);
void log_reference(acb_t out, const Active& r, const acb_t z, slong prec, int analytic = 0);
void relative_sum(acb_t out, const Segment& seg, const Active& r, const acb_t z, slong prec, int analytic = 0);
void relative_log(acb_t out, const Segment& seg, const Active& r, const acb_t z, int analytic, slong prec);
void phi(acb_t out, const acb_t u, int analytic, slong prec);
int integrand(acb_ptr out, const acb_t z, void* param, slong order, slong prec);
Ball integrate(Job& job, double u, double v, long goal, const Ball& tol_scale, slong prec);  // checks job.deadline
Ball relative_derivative(const Active& a, const Active& r, const Ball& x, slong prec);
Ball log_derivative(const Segment& seg, const Active& r, const Ball& x, slong prec);
Ball loss_at(const Segment& p, const Segment& q, const Ball& x, const Ball& eps, slong prec);
Ball interval_ball(double u, double v, slong prec);
Ball loss_on(const Segment& p, const Segment& q, double u, double v, const Ball& eps, slong prec,
             bool* constant = nullptr);
std::pair<Ball, Ball> log_g_and_slope(const Piece& pc, const Ball& T, slong prec);
Quad combine_sums(const Piece& i, const Piece& j, const Ball& alpha, const Ball& beta, double B, slong prec);
Quad combine(const Piece& i, const Piece& j, const Ball& alpha, const Ball& beta, double B, slong prec);
std::optional<Ball> integral_right(const Quad& q, double B, slong prec);
std::optional<Ball> sup_right(const Quad& q, double B, slong prec);
Side mirrored(const Side& s);
const Piece* tail_piece(const Side& q);
Tail renyi_tail(const Side& p, const Side& q, const Ball& alpha, double B, slong prec);
Ball mass_tail(const Side& p, double B, slong prec);
LossSup loss_sup_tail(const Side& p, const Side& q, double B, slong prec);
Certified hockey_stick(const Pair& pr, double eps_d, long goal, slong prec, const Deadline& deadline);
Certified renyi(const sim::Law& lp, const sim::Law& lq, const Pair& pr, double alpha_d, long goal, slong prec,
                const Deadline& deadline);
Certified kl(const Pair& pr, long goal, slong prec, const Deadline& deadline);
Certified renyi_inf(const Pair& pr, slong prec, const Deadline& deadline);
// The estimate of an enclosure computed at `prec` bits (ends rounded outwards, logs of the ends from the ball
// itself); `bounded`: a hockey-stick or TV value, clipped to [0, 1].
Estimate enclosure_estimate(const Ball& v, slong prec, bool bounded);
// Arb's per-thread caches, released when a thread that used them ends.
void release_caches_at_thread_exit();

// Privacy-loss lattices (pld.cpp): a cell of one release, its μ-mass p and ν-mass q, its loss in [j0·Δ, j1·Δ], j0 < j1;
// a `point` (an atom, or a cell where the loss is constant) has one loss value, in [lo, hi].
struct LossCell {
  long j0, j1;
  Ball p, q;
  bool point = false;
  double lo = 0, hi = 0;
};
// A measure on the grid ℤΔ whose hockey-stick curve lies below the cells' at every level, with an error of second
// order in Δ (pld_lower.cpp): masses by grid index, as balls whose values are the masses. nullopt where it cannot be
// built or checked (the caller keeps the first-order lower lattice).
std::optional<std::map<long, Ball>> dominated_masses(const std::vector<LossCell>& cells, double step);


}  // namespace privamp::verify::certified_detail
