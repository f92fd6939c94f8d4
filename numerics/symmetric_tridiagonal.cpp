#include "numerics/symmetric_tridiagonal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"

namespace privamp {

namespace {

// Sets negligible off-diagonal entries to zero: |e_i| below the smallest normal, or e_i² ≤ ε² (|d_i| + |d_{i+1}|)
// (the test of Eigen's driver, scaled by 1/ε so that it does not underflow).
void deflate(const Eigen::VectorXd& d, Eigen::VectorXd& e, Eigen::Index from, Eigen::Index to) {
  const double tiny = std::numeric_limits<double>::min();
  const double inv_eps = 1 / std::numeric_limits<double>::epsilon();
  for (Eigen::Index i = from; i < to; ++i) {
    const double scaled = inv_eps * e[i];
    if (std::fabs(e[i]) < tiny || scaled * scaled <= std::fabs(d[i]) + std::fabs(d[i + 1])) e[i] = 0;
  }
}

}  // namespace

TridiagonalEigen symmetric_tridiagonal_eigen(Eigen::VectorXd diagonal, Eigen::VectorXd off,
                                             const std::function<void()>& poll) {
  const Eigen::Index n = diagonal.size();
  if (n < 1 || off.size() != n - 1) invalid_input("symmetric_tridiagonal_eigen: need n >= 1 diagonal and n - 1 off-diagonal entries");
  // Scaled to entries of at most 1 by a power of two (exact both ways), as Eigen's own solver scales its matrix
  // before the QR steps: the deflation test compares e_i² with |d_i| + |d_{i+1}|, which is right only at that
  // scale (unscaled, a generator with rates of 10^200 did not converge in 30n steps, and one of 10^8 took 9 % more).
  const double largest = std::max(diagonal.cwiseAbs().maxCoeff(), n > 1 ? off.cwiseAbs().maxCoeff() : 0.0);
  if (!std::isfinite(largest)) throw NumericalError("symmetric_tridiagonal_eigen: an entry is not finite");
  int exponent = 0;
  if (largest > 0) std::frexp(largest, &exponent);
  diagonal = diagonal.unaryExpr([exponent](double v) { return std::ldexp(v, -exponent); });
  off = off.unaryExpr([exponent](double v) { return std::ldexp(v, -exponent); });
  Eigen::MatrixXd q = Eigen::MatrixXd::Identity(n, n);
  const long max_steps = 30L * n;
  long steps = 0;
  Eigen::Index end = n - 1;
  deflate(diagonal, off, 0, end);
  while (true) {
    while (end > 0 && off[end - 1] == 0) --end;  // the trailing block that has split off is done
    if (end <= 0) break;
    if (++steps > max_steps) throw NumericalError("symmetric_tridiagonal_eigen: the QR iteration did not converge");
    if (poll) poll(); else throw_if_interrupted();
    Eigen::Index start = end - 1;
    while (start > 0 && off[start - 1] != 0) --start;  // the largest unreduced block ending at `end`
    Eigen::internal::tridiagonal_qr_step<Eigen::ColMajor>(diagonal.data(), off.data(), start, end, q.data(), n);
    deflate(diagonal, off, start, end);
  }
  // Ascending, by selection with column swaps (O(n²), in place: the vectors are the largest object here).
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    Eigen::Index k = 0;
    diagonal.segment(i, n - i).minCoeff(&k);
    if (k > 0) {
      std::swap(diagonal[i], diagonal[i + k]);
      q.col(i).swap(q.col(i + k));
    }
  }
  TridiagonalEigen out{diagonal.unaryExpr([exponent](double v) { return std::ldexp(v, exponent); }), std::move(q)};
  return out;
}

}  // namespace privamp
