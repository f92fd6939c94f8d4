// The contour integral's characteristic function on a grid of times against a long-double reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "verify/divergence/phasors.hpp"

using privamp::kU;
using privamp::verify::contour_detail::kPhasorError;
using privamp::verify::contour_detail::Phasors;

TEST_CASE("phasors stay within their error budget at every step, however long the line", "[composition][phasors]") {
  // 20,003 nodes (not a multiple of four: the padding is read), losses of mixed sizes and signs, weights spread over
  // twelve orders of magnitude, normalised.
  std::mt19937_64 generator(20261130);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::size_t n = 20'003;
  std::vector<double> loss(n), weight(n);
  long double total = 0;
  for (std::size_t j = 0; j < n; ++j) {
    loss[j] = (unit(generator) - 0.3) * std::pow(10.0, 4 * unit(generator) - 3);
    weight[j] = std::pow(10.0, -12 * unit(generator));
    total += weight[j];
  }
  double mean_abs = 0;
  for (std::size_t j = 0; j < n; ++j) {
    weight[j] = static_cast<double>(weight[j] / total);
    mean_abs += weight[j] * std::fabs(loss[j]);
  }
  const double dt = 0.0371;
  Phasors phasors(loss, weight, dt);
  double worst = 0;  // the largest error over the budget's allowance, as a fraction of it
  for (long k = 0; k <= 700; ++k) {  // past P² = 64 steps, so every table row and several tops are read
    const std::complex<double> r = phasors.next();
    long double re = 0, im = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const long double phase = static_cast<long double>(k) * static_cast<long double>(dt) * loss[j];
      re += weight[j] * std::cos(phase);
      im += weight[j] * std::sin(phase);
    }
    const double error = std::hypot(static_cast<double>(r.real() - re), static_cast<double>(r.imag() - im));
    const double allowed = kPhasorError + 2 * kU * (k * dt) * mean_abs;
    worst = std::max(worst, error / allowed);
    INFO("step " << k << ": |R - reference| = " << error << ", allowed " << allowed);
    REQUIRE(error <= allowed);
  }
  // The budget is not so loose that nothing could exceed it: the errors reach a visible part of it.
  CHECK(worst > 0.01);
}
