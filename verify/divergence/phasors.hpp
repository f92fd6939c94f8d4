#pragma once
// The characteristic function of a discrete law on a grid of times, for the contour integral (contour.cpp).

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "numerics/constants.hpp"

namespace privamp::verify::contour_detail {

// R(t_k) = Σ_j π_j e^{i t_k L_j} at t_k = k·dt, k = 0, 1, 2, …, with an error that does not grow with k. Writing
// k = (a·P + b)·P + m (P = kPhasorBase), each phasor is the product of three factors computed by sincos:
// e^{i a P² dt L} every P² steps, e^{i b P dt L} and e^{i m dt L} from tables of P values per node made once. Nothing
// accumulates from step to step (a recurrence of one rotation per step drifts by up to 4u per step). The error budget
// per release and point, relative to Σ_j π_j = 1 (u the unit roundoff):
// - each phasor: three sincos within 1 ulp (glibc's bound; a component below 1 in modulus is then within u, the
//   pair within √2·u), two complex products within √5·u each (Brent, Percival and Zimmermann, "Error bounds on
//   complex floating-point multiplication", Math. Comp. 2007): under 9u, counted as 11u;
// - its product with the weight π_j: u;
// - the sum, compensated (Kahan's, in four lanes: 2u + O(n u²)), then the four lanes added: 2u;
// kPhasorError = 16u counts them. Not counted here: the phases' arguments fl(t·L), 2u·t·Σ_j π_j|L_j| (the caller
// counts it), and the weights' own rounding (each π_j an exp of a rounded logarithm), which is the law's, smooth in t:
// the contour compares two quadratures of the law for it.
inline constexpr int kPhasorBase = 8;
inline constexpr double kPhasorError = 16 * kU;
class Phasors {
  // Two doubles (SSE2, x86-64's baseline): the sum runs in two of them, four lanes, each lane compensated alike
  // whatever the compiler's vectoriser does (it does not reassociate a floating-point sum, so it left this loop scalar).
  using V2 = double __attribute__((vector_size(16)));
  static V2 load(const double* p) {
    V2 v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

 public:
  // Nodes' losses L_j and weights π_j, and the step dt.
  Phasors(const std::vector<double>& loss, const std::vector<double>& weight, double dt)
      : dt_(dt), n_((loss.size() + 3) / 4 * 4), loss_(loss), weight_(weight) {
    // Padded to whole groups of four nodes with weight 0 (and loss 0).
    loss_.resize(n_, 0.0);
    weight_.resize(n_, 0.0);
    for (auto* row : {&top_re_, &top_im_, &base_re_, &base_im_}) row->resize(n_);
    for (auto* table : {&mid_re_, &mid_im_, &low_re_, &low_im_}) table->resize(kPhasorBase * n_);
    for (int m = 0; m < kPhasorBase; ++m)
      for (std::size_t j = 0; j < n_; ++j) {
        const std::size_t at = static_cast<std::size_t>(m) * n_ + j;
        ::sincos(m * dt * loss_[j], &low_im_[at], &low_re_[at]);
        ::sincos(m * kPhasorBase * dt * loss_[j], &mid_im_[at], &mid_re_[at]);
      }
  }
  std::complex<double> next() {
    const long m = k_ % kPhasorBase;
    if (m == 0) rebase();
    const double* w = weight_.data();
    const double* base_re = base_re_.data();
    const double* base_im = base_im_.data();
    const double* low_re = low_re_.data() + m * n_;
    const double* low_im = low_im_.data() + m * n_;
    // Kahan's compensated sum in four lanes: sum and its lost low part, carry.
    V2 sum_re[2] = {}, sum_im[2] = {}, carry_re[2] = {}, carry_im[2] = {};
    auto add = [](V2& sum, V2& carry, V2 x) {
      const V2 y = x - carry, t = sum + y;
      carry = (t - sum) - y;
      sum = t;
    };
    for (std::size_t j = 0; j < n_; j += 4)
      for (std::size_t l = 0; l < 2; ++l) {
        const std::size_t i = j + 2 * l;
        const V2 br = load(base_re + i), bi = load(base_im + i), lr = load(low_re + i), li = load(low_im + i), x = load(w + i);
        add(sum_re[l], carry_re[l], x * (br * lr - bi * li));
        add(sum_im[l], carry_im[l], x * (br * li + bi * lr));
      }
    ++k_;
    const V2 re = (sum_re[0] - carry_re[0]) + (sum_re[1] - carry_re[1]);
    const V2 im = (sum_im[0] - carry_im[0]) + (sum_im[1] - carry_im[1]);
    return {re[0] + re[1], im[0] + im[1]};
  }

 private:
  // base = e^{i a P² dt L}·e^{i b P dt L} for the P steps that start at k = (a·P + b)·P.
  void rebase() {
    const long b = (k_ / kPhasorBase) % kPhasorBase;
    const double* mid_re = mid_re_.data() + b * n_;
    const double* mid_im = mid_im_.data() + b * n_;
    if (b == 0) {
      const double time = static_cast<double>(k_) * dt_;
      for (std::size_t j = 0; j < n_; ++j) ::sincos(time * loss_[j], &top_im_[j], &top_re_[j]);
    }
    for (std::size_t j = 0; j < n_; ++j) {
      base_re_[j] = top_re_[j] * mid_re[j] - top_im_[j] * mid_im[j];
      base_im_[j] = top_re_[j] * mid_im[j] + top_im_[j] * mid_re[j];
    }
  }

  double dt_;
  std::size_t n_;
  long k_ = 0;
  std::vector<double> loss_, weight_;
  std::vector<double> top_re_, top_im_, base_re_, base_im_, mid_re_, mid_im_, low_re_, low_im_;
};

}  // namespace privamp::verify::contour_detail
