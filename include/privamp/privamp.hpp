// privamp's installed C++ API (find_package(privamp) + target_link_libraries(app privamp::privamp)):
//
//   laws          sim::parse_law("mix(q=0.01, gaussian(0,1), gaussian(1,1))") → sim::LawPtr; sim::law_catalogue();
//                 or the law classes themselves (sim/laws/*.hpp: Gaussian, Laplace, mixtures, finite laws …)
//   divergences   verify::compute_divergences(mu, nu, {Quantity::renyi(2), Quantity::hockey_stick(0.5)}, options)
//                 → verify::Estimate (value, [lower, upper] containing the truth, error kind, method)
//   kernels       sim::FiniteKernel(matrix), sim::mixing_coefficients(k), verify::worst_case_amplification(k, ε, δ, ε′s),
//                 verify::worst_case_renyi(k, ε, δ, αs), verify::theorem1_points(k, ε, δ)
//   the runner    verify::load_cases(paths), verify::run_cases(cases, options) → verify::Row; verify::summary_table(rows)
//   formulas      sim::Expression::parse("alpha * delta^2 / 2")->number(params): the expression language of case files
//   search        verify::explore(case, "T4.closed", {.goal = verify::Goal::loosest, .budget = 400}) → verify::ExploreResult;
//                 verify::frontier(case, "T1.3", options, "gamma_doeblin", 8) → verify::FrontierResult
//   front ends    api::divergence / api::kernel (results, and their JSON form), api::verify (rows, summary, counts; the
//                 command's files on request), api::select_explore: what the command line and Python run
//   reports       verify::flat_table(rows) (results.csv's columns), verify::write_reports, verify::write_html
//
// Every function reports bad input with privamp::InvalidArgument (the message names the parameter, its value and
// the allowed range) and computations it cannot finish honestly with privamp::NumericalError.
#pragma once

#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/language/expression.hpp"
#include "sim/language/language.hpp"
#include "sim/laws/law.hpp"
#include "verify/api/api.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/cases/case.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/estimate.hpp"
#include "verify/divergence/worst_case.hpp"
#include "verify/explore/explore.hpp"
#include "verify/report/report.hpp"
#include "verify/runner/runner.hpp"
