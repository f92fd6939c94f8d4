// numerics/symmetric_tridiagonal.hpp: the eigen-decomposition the Langevin chains use, checked by its residual and
// orthogonality, against Eigen's own solver, and for stopping between QR steps when asked.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/symmetric_tridiagonal.hpp"

using privamp::symmetric_tridiagonal_eigen;

namespace {

struct Tridiagonal {
  Eigen::VectorXd d, e;
  Eigen::MatrixXd dense() const {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(d.size(), d.size());
    a.diagonal() = d;
    for (Eigen::Index i = 0; i + 1 < d.size(); ++i) a(i, i + 1) = a(i + 1, i) = e[i];
    return a;
  }
};

// A reflecting random walk's symmetrised generator on n nodes with rates spanning `spread` decades (the Langevin
// chain's shape: a negative semidefinite matrix with one zero eigenvalue up to rounding, clustered small eigenvalues).
Tridiagonal generator(Eigen::Index n, double spread) {
  Tridiagonal t{Eigen::VectorXd::Zero(n), Eigen::VectorXd(n - 1)};
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    const double up = std::pow(10.0, spread * std::sin(0.37 * static_cast<double>(i)));
    const double down = std::pow(10.0, spread * std::cos(0.11 * static_cast<double>(i)));
    t.e[i] = std::sqrt(up * down);
    t.d[i] -= up;
    t.d[i + 1] -= down;
  }
  return t;
}

}  // namespace

TEST_CASE("the tridiagonal eigen-decomposition has small residuals, orthonormal vectors and Eigen's decomposition bit for bit", "[numerics][tridiagonal]") {
  for (const double spread : {0.0, 1.0, 3.0}) {
    for (const Eigen::Index n : {Eigen::Index{1}, Eigen::Index{2}, Eigen::Index{7}, Eigen::Index{120}}) {
      INFO("n = " << n << ", rates over " << spread << " decades");
      Tridiagonal t = n > 1 ? generator(n, spread) : Tridiagonal{Eigen::VectorXd::Constant(1, -2.5), Eigen::VectorXd(0)};
      const auto result = symmetric_tridiagonal_eigen(t.d, t.e);
      const Eigen::MatrixXd a = t.dense();
      const double norm = a.cwiseAbs().rowwise().sum().maxCoeff();
      CHECK((a * result.vectors - result.vectors * result.values.asDiagonal()).cwiseAbs().maxCoeff() <= 1e-13 * norm);
      CHECK((result.vectors.transpose() * result.vectors - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff() <= 1e-13 * static_cast<double>(n));
      for (Eigen::Index k = 0; k + 1 < n; ++k) CHECK(result.values[k] <= result.values[k + 1]);
      // Eigen's driver on the matrix scaled as Eigen's own solver scales it (by a power of two here, so exactly):
      // the same rotations in the same order, bit for bit.
      int exponent = 0;
      std::frexp(std::max(t.d.cwiseAbs().maxCoeff(), n > 1 ? t.e.cwiseAbs().maxCoeff() : 0.0), &exponent);
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> reference;
      reference.computeFromTridiagonal(t.d / std::ldexp(1.0, exponent), t.e / std::ldexp(1.0, exponent), Eigen::ComputeEigenvectors);
      CHECK(reference.eigenvalues() * std::ldexp(1.0, exponent) == result.values);
      CHECK(reference.eigenvectors() == result.vectors);
    }
  }
}

TEST_CASE("the tridiagonal eigen-decomposition converges at any scale, in about as many QR steps as at scale 1", "[numerics][tridiagonal]") {
  // A Langevin chain's rates are 1/h² times e^{±ΔU/2}: 10^6 and more. The deflation test is calibrated for entries of
  // order 1; unscaled, this matrix took 616 QR steps at scale 10^8 against 564 at 1 and 544 at 10^-6, and at 10^200 it
  // did not converge in 30n steps.
  const Tridiagonal t = generator(300, 2.0);
  int unit_steps = 0;
  const auto unit = symmetric_tridiagonal_eigen(t.d, t.e, [&] { ++unit_steps; });
  for (const double scale : {1e-6, 1e8, 1e200}) {
    INFO("scale " << scale);
    int steps = 0;
    const auto scaled = symmetric_tridiagonal_eigen(t.d * scale, t.e * scale, [&] { ++steps; });
    CHECK(std::abs(steps - unit_steps) <= unit_steps / 50);  // (the scaled entries round differently: 542 to 548 steps)
    CHECK((scaled.values / scale - unit.values).cwiseAbs().maxCoeff() <= 1e-12 * unit.values.cwiseAbs().maxCoeff());
  }
  CHECK_THROWS_AS(symmetric_tridiagonal_eigen(t.d * 1e300 * 1e10, t.e), privamp::NumericalError);
}

TEST_CASE("the tridiagonal eigen-decomposition polls between QR steps and stops when the poll throws", "[numerics][tridiagonal][interrupt]") {
  const Tridiagonal t = generator(200, 2.0);
  int polls = 0;
  const auto count = [&] { ++polls; };
  symmetric_tridiagonal_eigen(t.d, t.e, count);
  CHECK(polls >= 200);  // at least one step per eigenvalue
  int calls = 0;
  const auto stop_at_ten = [&] {
    if (++calls == 10) throw std::runtime_error("stop");
  };
  CHECK_THROWS_WITH(symmetric_tridiagonal_eigen(t.d, t.e, stop_at_ten), "stop");
  CHECK(calls == 10);
  // The default poll is the process's interrupt flag.
  privamp::request_interrupt();
  CHECK_THROWS_AS(symmetric_tridiagonal_eigen(t.d, t.e), privamp::Interrupted);
  privamp::clear_interrupt();
  CHECK_NOTHROW(symmetric_tridiagonal_eigen(t.d, t.e));
}

TEST_CASE("the tridiagonal eigen-decomposition refuses mismatched sizes", "[numerics][tridiagonal]") {
  CHECK_THROWS(symmetric_tridiagonal_eigen(Eigen::VectorXd(3), Eigen::VectorXd(3)));
  CHECK_THROWS(symmetric_tridiagonal_eigen(Eigen::VectorXd(0), Eigen::VectorXd(0)));
}
