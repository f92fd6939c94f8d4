// Eigen-decomposition of a symmetric tridiagonal matrix that a long computation can stop: the implicit QR
// iteration with Wilkinson shifts of Eigen's SelfAdjointEigenSolver (its internal step, Golub & Van Loan §8.3),
// driven here so that `poll` runs between steps. A step costs O(n · block) rotations of the eigenvector matrix, a
// few tens of milliseconds at n = 3,200, where the whole decomposition takes about 15 s and Eigen's own driver cannot
// be stopped.
#pragma once

#include <functional>

#include <Eigen/Core>

namespace privamp {

struct TridiagonalEigen {
  Eigen::VectorXd values;   // ascending
  Eigen::MatrixXd vectors;  // column k belongs to values[k]; orthonormal
};

// `diagonal` (n ≥ 1) and `off` (n − 1) define the matrix. `poll` (default: throw_if_interrupted) runs between QR
// steps and may throw. NumericalError if the iteration does not converge in 30 n steps (Eigen's limit). Unscaled, as
// Eigen's computeFromTridiagonal: the same rotations, bit for bit the same result.
TridiagonalEigen symmetric_tridiagonal_eigen(Eigen::VectorXd diagonal, Eigen::VectorXd off,
                                             const std::function<void()>& poll = {});

}  // namespace privamp
