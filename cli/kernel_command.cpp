// `privamp kernel`: mixing coefficients of a finite Markov kernel and its exact amplification of (ε, δ)-DP
// mechanisms, next to Theorem 1's bounds.
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/api/api.hpp"
#include "cli/commands.hpp"
#include "cli/quantity_list.hpp"

namespace privamp::cli {

namespace {

struct KernelArgs {
  std::string k, k_file, dp;
  std::vector<std::string> eps, eps_prime, renyi;
  bool json = false;
};

std::string interval(const verify::Estimate& e) {
  if (std::isinf(e.value)) return "inf";
  return verify::interval_text(e);
}

}  // namespace

Action add_kernel_command(CLI::App& app) {
  auto args = std::make_shared<KernelArgs>();
  auto* cmd = app.add_subcommand("kernel", "Mixing coefficients of a finite Markov kernel and its exact amplification of "
                                           "(eps, delta)-DP mechanisms against Theorem 1");
  cmd->add_option("--K", args->k, "the kernel as rows, e.g. '[[0.5,0.3,0.2],[0.1,0.6,0.3],[0.25,0.25,0.5]]'");
  cmd->add_option("--K-file", args->k_file, "the kernel from a file: CSV (one row per line), JSON, or TOML with K = [[..]]");
  cmd->add_option("--eps", args->eps, "(gamma, eps)-Dobrushin coefficients at these eps (list or range)");
  cmd->add_option("--dp", args->dp, "EPS,DELTA of the mechanism composed with the kernel");
  cmd->add_option("--eps-prime", args->eps_prime, "eps' of the exact amplified profile delta'(eps') (list or range)");
  cmd->add_option("--renyi", args->renyi, "orders alpha > 1 of the exact worst-case Renyi profile (list or range)");
  cmd->add_flag("--json", args->json, "print a JSON object instead of tables");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    if (args->k.empty() == args->k_file.empty()) invalid_input("give the kernel with --K or --K-file (one of them)");
    const sim::FiniteKernel k = args->k.empty() ? api::read_kernel_file(args->k_file) : api::parse_kernel(args->k);
    api::KernelRequest request;
    for (const auto& item : args->eps)
      for (double e : parse_number_list(item, "--eps")) request.eps.push_back(e);
    for (const auto& item : args->eps_prime)
      for (double e : parse_number_list(item, "--eps-prime")) request.eps_prime.push_back(e);
    for (const auto& item : args->renyi)
      for (double a : parse_number_list(item, "--renyi")) request.renyi.push_back(a);
    if (!args->dp.empty()) {
      const auto v = parse_number_list(args->dp, "--dp");
      if (v.size() != 2) invalid_input("--dp {}: expected EPS,DELTA (two numbers)", args->dp);
      request.dp = std::make_pair(v[0], v[1]);
    }
    const api::KernelResult r = api::kernel(k, request);
    if (args->json) {
      std::cout << verify::sorted_json(api::to_tree(r)).dump(2) << "\n";
      return 0;
    }
    const auto& c = r.coefficients;
    std::cout << fmt::format("kernel on {} states (row-stochastic within 1e-12); coefficients exact up to rounding ({:.1e})\n",
                             k.size(), r.rounding);
    std::cout << fmt::format("  {:<28} {:.12g}\n", "Dobrushin gamma_TV", c.dobrushin);
    std::string omega;
    for (Eigen::Index i = 0; i < c.omega.size(); ++i) omega += fmt::format("{}{:.6g}", i ? ", " : "", c.omega[i]);
    std::cout << fmt::format("  {:<28} {:.12g}   omega = [{}]\n", "Doeblin gamma_D", c.doeblin, omega);
    std::cout << fmt::format("  {:<28} {:.12g}   max log K(x,y)/K(x',y) = {:.6g}\n", "ultra-mixing gamma_U",
                             c.ultra_mixing, c.ultra_mixing_ldp);
    for (const auto& [e, g] : r.dobrushin_at)
      std::cout << fmt::format("  {:<28} {:.12g}\n", fmt::format("(gamma, eps)-Dobrushin, eps={:g}", e), g);
    if (!r.dp) return 0;
    std::cout << fmt::format("\nafter an ({:g}, {:g})-DP mechanism, Theorem 1 guarantees:\n", r.dp->first, r.dp->second);
    for (const auto& t : r.theorem1)
      std::cout << fmt::format("  {:<5} ({:.6g}, {:.6g})-DP\n", t.id, t.eps_prime, t.delta_prime);
    if (!r.profile.empty()) {
      std::cout << "\nexact worst case over all (eps, delta)-DP mechanisms (canonical pair, worst map g), against the "
                   "bounds (-: no statement at that eps')\n";
      std::cout << fmt::format("{:>10} {:>20} {:>42} {:>14}", "eps'", "delta'", "interval", "map g");
      for (const auto& t : r.theorem1) std::cout << fmt::format(" {:>12}", t.id);
      std::cout << "\n";
      for (const auto& p : r.profile) {
        std::cout << fmt::format("{:>10.6g} {:>20.12g} {:>42} {:>14}", p.eps_prime, p.exact.value.value,
                                 interval(p.exact.value),
                                 fmt::format("({},{},{},{})", p.exact.map[0], p.exact.map[1], p.exact.map[2], p.exact.map[3]));
        for (const auto& b : p.bounds) std::cout << (b ? fmt::format(" {:>12.6g}", *b) : fmt::format(" {:>12}", "-"));
        std::cout << "\n";
      }
      if (r.profile.front().cross) std::cout << "(confirmed by enumerating the output sets: every interval overlaps)\n";
    }
    if (!r.renyi.empty()) {
      std::cout << "\nexact worst-case Renyi divergence over all (eps, delta)-DP mechanisms\n";
      std::cout << fmt::format("{:>10} {:>20} {:>42} {:>14}\n", "alpha", "R_alpha", "interval", "map g");
      for (const auto& [alpha, w] : r.renyi)
        std::cout << fmt::format("{:>10.6g} {:>20.12g} {:>42} {:>14}\n", alpha, w.value.value, interval(w.value),
                                 fmt::format("({},{},{},{})", w.map[0], w.map[1], w.map[2], w.map[3]));
    }
    return 0;
  };
}

}  // namespace privamp::cli
