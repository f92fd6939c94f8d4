// The law chain(K, mu, t) of the expression language: X_t of a finite Markov chain, mu K^t, computed jointly
// with the chain of the same K and t from another start (its difference propagated).
#include <Eigen/Core>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/spec.hpp"
#include "sim/processes/joint_grid.hpp"

namespace privamp::sim {

LawSpec chain_law_spec() {
  using K = ParamKind;
  return {"chain", "law of X_t of a finite Markov chain: mu K^t on the states 0..n-1",
    {ParamSpec{"K", K::matrix, std::nullopt, "row-stochastic n x n transition matrix"}.within(Range::probability()).summing_to_one(),
    ParamSpec{"mu", K::numbers, std::nullopt, "initial law (n probabilities)"}.within(Range::probability()).summing_to_one(),
    ParamSpec{"t", K::integer, "1", "number of steps, >= 0"}.within(Range::between(0, 1e6))},
    "chain(K=[[0.9, 0.1], [0.2, 0.8]], mu=[1, 0], t=3)",
    [](const Args& a) {
      const auto rows = a.matrix("K");
      Eigen::MatrixXd k(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.front().size()));
      for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j) k(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
      const std::vector<double> mu = a.numbers("mu");
      const long t = a.integer("t");
      if (t < 0 || t > 1'000'000) throw_invalid("chain", "t", static_cast<double>(t), "0 <= t <= 1e6");
      const double work = static_cast<double>(k.rows()) * static_cast<double>(k.rows()) * static_cast<double>(t);
      if (work > 2e9)
        invalid_input("chain: states^2 x t = {}^2 x {} = {:.3g} exceeds the work limit 2e9 (about 5 s); "
                      "lower t", k.rows(), t, work);
      auto kernel = std::make_shared<const FiniteKernel>(k);
      auto vec = [](const std::vector<double>& v) {
        return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())));
      };
      const Eigen::VectorXd law = kernel->push(vec(mu), static_cast<int>(t));
      std::vector<double> at;
      for (Eigen::Index i = 0; i < law.size(); ++i) at.push_back(static_cast<double>(i));
      // Two chains with the same K and t are computed jointly against each other (their difference propagated).
      ProcessIdentity family{"chain", {static_cast<double>(t), static_cast<double>(k.rows())}};
      family.numbers.insert(family.numbers.end(), k.data(), k.data() + k.size());
      auto finite = std::make_shared<FiniteLaw>(at, law / law.sum());
      finite->set_exact_source({{}, k, mu, t});
      return std::make_shared<ProcessLaw>(
          finite, family, mu,
          [kernel, at, t, vec](const std::vector<double>& mine, const std::vector<double>& theirs) {
            const auto forward = kernel->push_pair(vec(mine), vec(theirs), static_cast<int>(t));
            const auto backward = kernel->push_pair(vec(theirs), vec(mine), static_cast<int>(t));
            return joint_finite_laws(at, forward.first, forward.second, backward.second);
          });
    }};
}
PRIVAMP_LAW(280, chain_law_spec);

}  // namespace privamp::sim
