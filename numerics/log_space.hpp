// Log-space arithmetic: everything that can overflow (large α, tiny δ, long chains) is carried as a logarithm.
// Templates so that the same code runs in double and in 50-digit multiprecision.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>
#include <span>

namespace privamp {

template <class Real>
inline Real neg_inf() {
  return -std::numeric_limits<Real>::infinity();
}

// log(e^a + e^b)
template <class Real>
Real log_add(const Real& a, const Real& b) {
  using std::exp;
  using std::log1p;
  if (a == neg_inf<Real>()) return b;
  if (b == neg_inf<Real>()) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

// log(1 − e^x) for x ≤ 0, accurate on both sides of −log 2 (Mächler 2012).
template <class Real>
Real log1mexp(const Real& x) {
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  if (x > Real(-0.6931471805599453)) return log(-expm1(x));
  return log1p(-exp(x));
}

// log(e^a − e^b) for a ≥ b; −inf when a == b.
template <class Real>
Real log_sub(const Real& a, const Real& b) {
  if (b == neg_inf<Real>()) return a;
  return a + log1mexp(Real(b - a));
}

// log Σ e^{x_i} with the maximum factored out; −inf for an empty or all −inf input.
template <class Real>
Real log_sum_exp(std::span<const Real> x) {
  using std::exp;
  using std::log;
  Real m = neg_inf<Real>();
  for (const Real& v : x) m = v > m ? v : m;
  if (m == neg_inf<Real>() || m == std::numeric_limits<Real>::infinity()) return m;
  Real s = 0;
  for (const Real& v : x) s += exp(v - m);
  return m + log(s);
}

// Streaming log-sum-exp: add terms one at a time without storing them.
template <class Real>
class LogSumAccumulator {
 public:
  void add(const Real& v) {
    using std::exp;
    if (v == neg_inf<Real>()) return;
    if (v > max_) {
      sum_ = sum_ * exp(max_ - v) + 1;
      max_ = v;
    } else if (!std::is_same_v<Real, double> || !(v - max_ <= -37)) {  // (NaN is added, not dropped)
      sum_ += exp(v - max_);
    }
    // In double, e^{v − max} < e^−37 < 2^−53 ≤ half an ulp of sum_ (≥ 1) leaves sum_ unchanged when added: the exp
    // (an underflow, far from the maximum of a wide mixture) is skipped with a bit-identical result.
  }
  Real value() const {
    using std::log;
    return max_ == neg_inf<Real>() ? max_ : max_ + log(sum_);
  }

 private:
  Real max_ = neg_inf<Real>();
  Real sum_ = 0;
};

}  // namespace privamp
