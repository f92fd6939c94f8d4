#include "plots/figures.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/laws/expression.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/worst_case.hpp"

namespace privamp::plots {

namespace {

using verify::Params;
using verify::Quantity;

// n points from a to b, evenly in log scale (or the first, middle and last for reduced grids).
std::vector<double> logspace(double a, double b, int n, bool reduced) {
  if (reduced) n = 3;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(a * std::pow(b / a, i / static_cast<double>(n - 1)));
  return v;
}

std::vector<double> linspace(double a, double b, int n, bool reduced) {
  if (reduced) n = 3;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(a + (b - a) * i / (n - 1));
  return v;
}

double divergence(const std::string& mu, const std::string& nu, const Quantity& q, bool symmetric = false) {
  const auto p = sim::parse_law(mu), r = sim::parse_law(nu);
  double v = verify::compute_divergence(*p, *r, q).value;
  if (symmetric) v = std::max(v, verify::compute_divergence(*r, *p, q).value);
  return v;
}

double bound(const std::string& id, const Params& p) { return verify::find_bound(id).bound(p).value; }
double exact(const std::string& id, const Params& p) { return verify::find_bound(id).exact(p).value; }

Params params(std::initializer_list<std::pair<const std::string, double>> numbers,
              std::initializer_list<std::pair<const std::string, std::string>> words = {}) {
  Params p;
  p.numbers = numbers;
  p.words = words;
  return p;
}

Table ou_vs_gaussian(bool reduced) {
  Table t{{"t", "ou_gm_kappa0.5", "ou_gm_kappa2", "ou_gm_kappa4", "ou_gm_kappa8", "pgm_gm_kappa2"}, {}};
  for (double time : logspace(0.01, 10, 40, reduced)) {
    std::vector<double> row{time};
    for (double kappa : {0.5, 2.0, 4.0, 8.0})
      row.push_back(exact("T8.a", params({{"d", 1}, {"R", 1}, {"rho", 1}, {"delta", 1}, {"theta", kappa}, {"t", time}})));
    const Params p = params({{"d", 1}, {"R", 1}, {"rho", 1}, {"delta", 1}, {"theta", 2}, {"t", time}});
    row.push_back(exact("MSE.pgm", p) / exact("MSE.gm", p));
    t.rows.push_back(row);
  }
  return t;
}

Table sgd_per_index(bool reduced) {
  Table t{{"i", "exact", "T5_bound", "convex_baseline"}, {}};
  const double n = 40;
  std::vector<double> indices;
  for (int i = 1; i <= 40; ++i) indices.push_back(i);
  if (reduced) indices = {1, 20, 40};
  for (double i : indices) {
    const Params p = params({{"n", n}, {"i", i}, {"eta", 0.5}, {"sigma", 1}, {"lambda", 1}, {"R", 1}, {"alpha", 2},
                             {"intervals", reduced ? 50.0 : 200.0}});
    const double c = 2.0, baseline = i >= n ? 2 * 2 * c * c : 2 * 2 * c * c / (n - i);  // α·2C²/((n−i)σ²)
    t.rows.push_back({i, exact("T5", p), bound("T5", p), baseline});
  }
  return t;
}

// The exact amplified profile ε' ↦ δ'(ε') of a kernel (worst case over all (1, 0.01)-DP mechanisms) for two
// kernels, and each bound of Theorem 1 as a point (ε', δ') — four points per kernel. Rows of the profile leave
// the point columns empty (NaN) and the point rows leave the profile columns empty.
Table mixing_kernel(bool reduced) {
  Table t{{"eps_prime", "exact_lazy_rr", "exact_dirichlet", "bounds_lazy_rr", "bounds_dirichlet"}, {}};
  const double eps = 1, delta = 0.01, none = std::nan("");
  const sim::FiniteKernel kernels[] = {sim::lazy_kernel(sim::randomized_response_kernel(4, 1.0), 0.5),
                                       sim::random_dirichlet_kernel(6, 2.0, 5)};
  for (double ep : linspace(0, 1.2, 49, reduced)) {
    std::vector<double> row{ep};
    for (const auto& k : kernels) row.push_back(verify::worst_case_amplification(k, eps, delta, {ep}).front().value.value);
    row.push_back(none);
    row.push_back(none);
    t.rows.push_back(row);
  }
  for (std::size_t j = 0; j < 2; ++j) {
    const auto& k = kernels[j];
    const auto m = sim::mixing_coefficients(k);
    const Params p = params({{"eps", eps}, {"delta", delta}, {"gamma_tv", m.dobrushin}, {"gamma_doeblin", m.doeblin},
                             {"gamma_ultra", m.ultra_mixing},
                             {"gamma_hs_tilde", sim::dobrushin_at(k, std::log1p(std::expm1(eps) / delta))}});
    for (const char* id : {"T1.1", "T1.2", "T1.3", "T1.4"}) {
      const auto& entry = verify::find_bound(id);
      std::vector<double> row{entry.order(p), none, none, none, none};
      row[3 + j] = entry.bound(p).value;
      t.rows.push_back(row);
    }
  }
  return t;
}

Table iterated_laplace(bool reduced) {
  Table t{{"alpha", "exact", "E2_bound", "no_amplification", "exact_R_inf"}, {}};
  const double r_inf = divergence("laplace_sum(1, [1, 1])", "laplace_sum(0, [1, 1])", Quantity::renyi_inf());
  for (double a : logspace(1.1, 1000, 40, reduced)) {
    const Params p = params({{"alpha", a}, {"delta", 1}, {"lambda1", 1}, {"lambda2", 1}});
    t.rows.push_back({a, divergence("laplace_sum(1, [1, 1])", "laplace_sum(0, [1, 1])", Quantity::renyi(a)),
                      bound("E2", p), divergence("laplace(1, 1)", "laplace(0, 1)", Quantity::renyi(a)), r_inf});
  }
  return t;
}

Table iteration(bool reduced) {
  Table t{{"r", "exact_L0.5", "closed_L0.5", "exact_L0.9", "closed_L0.9", "exact_L1", "closed_L1"}, {}};
  std::vector<double> rs{1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40, 50};
  if (reduced) rs = {1, 10, 50};
  for (double r : rs) {
    std::vector<double> row{r};
    for (double l : {0.5, 0.9, 1.0}) {
      const Params p = params({{"alpha", 2}, {"delta", 1}, {"sigma", 1}, {"L", l}, {"r", r}});
      row.push_back(divergence(fmt::format("gaussian_chain(x0=1, r={}, L={})", r, l),
                               fmt::format("gaussian_chain(x0=0, r={}, L={})", r, l), Quantity::renyi(2)));
      row.push_back(bound("T4.closed", p));
    }
    t.rows.push_back(row);
  }
  return t;
}

Table diffusions(bool reduced) {
  Table t{{"t", "brownian_exact", "brownian_Lambda", "ou_exact", "ou_Lambda", "double_well_exact", "double_well_Lambda"}, {}};
  const double alpha = 2;
  for (double time : logspace(0.5, 5, 16, reduced)) {
    const Params ou = params({{"alpha", alpha}, {"delta", 1}, {"t", time}, {"theta", 1}, {"rho", 1}});
    const Params bm = params({{"alpha", alpha}, {"delta", 1}, {"t", time}, {"theta", 0}, {"rho", 1}});
    const Params dw = params({{"alpha", alpha}, {"x", 1}, {"x2", -1}, {"t", time}, {"lo", -4}, {"hi", 4},
                              {"cells", reduced ? 80.0 : 200.0}},
                             {{"potential", "double_well"}});
    t.rows.push_back({time, divergence(fmt::format("brownian(1, {})", time), fmt::format("brownian(0, {})", time), Quantity::renyi(alpha)) / alpha,
                      bound("T6", bm) / alpha,
                      divergence(fmt::format("ou(1, {})", time), fmt::format("ou(0, {})", time), Quantity::renyi(alpha)) / alpha,
                      bound("T6", ou) / alpha, exact("T6", dw) / alpha, bound("T6", dw) / alpha});
  }
  return t;
}

Table repeated_noise(bool reduced) {
  Table t{{"n", "laplace_alpha2", "laplace_alpha8", "gaussian_alpha2"}, {}};
  std::vector<double> ns{1, 2, 3, 5, 8, 13, 20, 35, 50, 100, 200};
  if (reduced) ns = {1, 5, 20};
  for (double n : ns) {
    std::vector<double> row{n};
    for (double a : {2.0, 8.0}) {
      const double e = divergence(fmt::format("laplace_nfold(n={}, loc=1)", n), fmt::format("laplace_nfold(n={})", n), Quantity::renyi(a));
      row.push_back(bound("RNA.thm", params({{"n", n}, {"alpha", a}, {"scale", 1}}, {{"noise", "laplace"}})) / e);
    }
    const double s = std::sqrt(n);
    const double e = divergence(fmt::format("gaussian(1, {})", s), fmt::format("gaussian(0, {})", s), Quantity::renyi(2));
    row.push_back(bound("RNA.thm", params({{"n", n}, {"alpha", 2}, {"scale", 1}}, {{"noise", "gaussian"}})) / e);
    t.rows.push_back(row);
  }
  return t;
}

Table shuffling(bool reduced) {
  Table t{{"n", "exact_eps0.1", "bound_eps0.1", "exact_eps0.3", "bound_eps0.3"}, {}};
  std::vector<double> ns{100, 200, 500, 1000, 2000, 5000, 10000};
  if (reduced) ns = {100, 1000};
  for (double n : ns) {
    std::vector<double> row{n};
    for (double eps : {0.1, 0.3}) {
      row.push_back(divergence(fmt::format("shuffled_rr(n={}, eps0=1, first=1)", n), fmt::format("shuffled_rr(n={}, eps0=1, first=0)", n),
                               Quantity::hockey_stick(eps), true));
      row.push_back(bound("SHUF.thm", params({{"n", n}, {"eps0", 1}, {"eps", eps}})));
    }
    t.rows.push_back(row);
  }
  return t;
}

Table subsampling(bool reduced) {
  Table t{{"eps_prime", "poisson_exact", "poisson_bound", "wr_exact", "wr_bound", "rr_exact", "rr_bound"}, {}};
  // Binary randomized response (ε0 = 2): the count of 1s among the reports of m = 10 records sampled without
  // replacement from n = 100 — the verified case's mechanism (cases/subsampling.toml), against the same table row.
  // (A mechanism that releases the user's own slot, ⊥ when unsampled, is not of the theorem's form.)
  const std::string rr1 = "subsample(scheme=wor, base=rr, side=1, n=100, m=10, eps0=2)";
  const std::string rr0 = "subsample(scheme=wor, base=rr, side=0, n=100, m=10, eps0=2)";
  for (double ep : linspace(0.02, 1.5, 30, reduced)) {
    const Params rr = params({{"n", 100}, {"m", 10}, {"eps0", 2}, {"eps_prime", ep}}, {{"scheme", "wor"}, {"base", "rr"}});
    const Params poisson = params({{"q", 0.01}, {"sigma", 1}, {"eps_prime", ep}}, {{"scheme", "poisson"}, {"base", "gaussian"}});
    const Params wr = params({{"n", 100}, {"m", 5}, {"sigma", 1}, {"eps_prime", ep}}, {{"scheme", "wr"}, {"base", "gaussian"}});
    t.rows.push_back({ep, divergence("mix(0.01, gaussian(0, 1), gaussian(1, 1))", "gaussian(0, 1)", Quantity::hockey_stick(ep), true),
                      bound("SUB.table", poisson),
                      divergence("binomial_mix(m=5, p=0.01, law=gaussian(0, 1))", "gaussian(0, 1)", Quantity::hockey_stick(ep), true),
                      bound("SUB.table", wr), divergence(rr1, rr0, Quantity::hockey_stick(ep), true),
                      bound("SUB.table", rr)});
  }
  return t;
}

}  // namespace

const std::vector<Figure>& figure_catalogue() {
  static const std::vector<Figure> figures = {
      {"ou_vs_gaussian", "OU mechanism vs Gaussian mechanism (Theorem 8)",
       "E_OU/E_GM against t for kappa = theta R^2/(d rho^2) in {0.5, 2, 4, 8} (d = R = rho = 1), and E_PGM/E_GM at kappa = 2",
       ou_vs_gaussian,
       "set logscale x\nset xlabel 't'\nset ylabel 'mean squared error ratio'\nset yrange [0:1.3]\n"
       "plot 1 with lines ls 9 title 'ratio 1', "
       "DATA using 1:2 with lines ls 1 title 'E_{OU}/E_{GM}, {/Symbol k} = 0.5', '' using 1:3 with lines ls 2 title '{/Symbol k} = 2', "
       "'' using 1:4 with lines ls 3 title '{/Symbol k} = 4', '' using 1:5 with lines ls 4 title '{/Symbol k} = 8 (hypothesis fails)', "
       "'' using 1:6 with lines ls 5 title 'E_{PGM}/E_{GM}, {/Symbol k} = 2'\n"},
      {"sgd_per_index", "Per-index privacy of noisy projected SGD (Theorem 5)",
       "exact R_alpha (alpha = 2) of x_n between datasets differing at index i, with projection (n = 40, eta = 0.5, sigma = 1, "
       "lambda = 1, K = [-1, 1]), Theorem 5's bound and the convex baseline",
       sgd_per_index,
       "set logscale y\nset format y '10^{%L}'\nset xlabel 'index i'\nset ylabel 'R_{/Symbol a} (i), {/Symbol a} = 2'\nset key bottom right\n"
       "plot DATA using 1:2 with linespoints ls 1 title 'exact (with projection)', '' using 1:3 with lines ls 2 title 'Theorem 5', "
       "'' using 1:4 with lines ls 3 title 'convex baseline 2C^2/((n-i){/Symbol s}^2)'\n"},
      {"mixing_kernel", "Amplification by a mixing kernel (Theorem 1)",
       "exact amplified privacy profile eps' -> delta'(eps') (worst case over all (1, 0.01)-DP mechanisms) of a lazy 4-ary "
       "randomized response kernel (eps0 = 1, stays put with probability 1/2) and a random 6-state Dirichlet kernel, and "
       "the (eps', delta') points of Theorem 1's four bounds (T1.1 and T1.2 at eps' = 1, T1.3 and T1.4 at their eps')",
       mixing_kernel,
       "set logscale y\nset xlabel '{/Symbol e}'''\nset ylabel '{/Symbol d}'''\nset format y '10^{%L}'\nset key top right\n"
       "plot DATA using 1:2 with lines ls 1 title 'exact, lazy RR kernel', '' using 1:3 with lines ls 2 title 'exact, Dirichlet kernel', "
       "'' using 1:4 with points ls 1 pt 9 ps 1.6 title 'Theorem 1 bounds, lazy RR', "
       "'' using 1:5 with points ls 2 pt 11 ps 1.6 title 'Theorem 1 bounds, Dirichlet'\n"},
      {"iterated_laplace", "Iterated Laplace (Example 2, Lemma 3)",
       "R_alpha of K o M for M = Lap(f(D), 1), K = Lap(x, 1), Delta = 1: exact, Example 2 with the optimal w, no amplification "
       "(M alone) and the exact R_inf",
       iterated_laplace,
       "set logscale x\nset xlabel '{/Symbol a}'\nset ylabel 'R_{/Symbol a}'\nset yrange [0:1.1]\nset key bottom right\n"
       "plot DATA using 1:2 with lines ls 1 title 'exact R_{/Symbol a}(KM(D) || KM(D''))', '' using 1:3 with lines ls 2 title 'Example 2 (optimal w)', "
       "'' using 1:4 with lines ls 3 title 'no amplification (M alone)', '' using 1:5 with lines ls 9 title 'exact R_{/Symbol \\245}'\n"},
      {"iteration", "Amplification by iteration (Theorem 4)",
       "R_alpha (alpha = 2) after r steps x <- L x + N(0, 1) from points at distance 1: exact (equal to T4.path for linear maps) "
       "and T4.closed",
       iteration,
       "set logscale xy\nset format y '10^{%L}'\nset xlabel 'r'\nset ylabel 'R_2'\nset key bottom left\n"
       "plot DATA using 1:2 with points ls 1 title 'exact = T4.path, L = 0.5', '' using 1:3 with lines ls 1 title 'T4.closed, L = 0.5', "
       "'' using 1:4 with points ls 2 title 'exact, L = 0.9', '' using 1:5 with lines ls 2 title 'T4.closed, L = 0.9', "
       "'' using 1:6 with points ls 3 title 'exact, L = 1', '' using 1:7 with lines ls 3 title 'T4.closed, L = 1'\n"},
      {"diffusions", "Diffusion mechanisms (Theorem 6, Example 5, Corollary 7)",
       "R_alpha/alpha (alpha = 2) against t, exact and Lambda(t), for Brownian motion (Delta = 1), OU (theta = rho = 1, Delta = 1) "
       "and the double-well Langevin diffusion (x = 1, x' = -1)",
       diffusions,
       "set logscale xy\nset xlabel 't'\nset ylabel 'R_{/Symbol a}/{/Symbol a}'\nset format y '10^{%L}'\nset key top right\n"
       "plot DATA using 1:2 with points ls 1 title 'Brownian, exact', '' using 1:3 with lines ls 1 title 'Brownian, {/Symbol L}(t)', "
       "'' using 1:4 with points ls 2 title 'OU, exact', '' using 1:5 with lines ls 2 title 'OU, {/Symbol L}(t)', "
       "'' using 1:6 with points ls 3 title 'double well, exact', '' using 1:7 with lines ls 3 title 'double well, {/Symbol L}(t)'\n"},
      {"repeated_noise", "Repeated noise addition (blog)",
       "bound/exact for R_alpha(P^{*n} + 1 || P^{*n}) <= n R_alpha(P + 1/n || P), Laplace (scale 1) and Gaussian P",
       repeated_noise,
       "set logscale x\nset xlabel 'n'\nset ylabel 'bound / exact'\nset yrange [0.9:2.3]\nset xrange [1:250]\nset key top left\n"
       "plot DATA using 1:2 with linespoints ls 1 title 'Laplace, {/Symbol a} = 2', '' using 1:3 with linespoints ls 2 title 'Laplace, {/Symbol a} = 8', "
       "'' using 1:4 with linespoints ls 3 title 'Gaussian, {/Symbol a} = 2'\n"},
      {"shuffling", "Shuffling (slides)",
       "exact delta(eps) of shuffled binary randomized response (eps0 = 1) against the slides' bound, over n",
       shuffling,
       "set logscale xy\nset xlabel 'n'\nset ylabel '{/Symbol d}'\nset format y '10^{%L}'\nset key bottom left\n"
       "plot DATA using 1:2 with linespoints ls 1 title 'exact, {/Symbol e} = 0.1', '' using 1:3 with lines ls 1 dt 2 title 'bound, {/Symbol e} = 0.1', "
       "'' using 1:4 with linespoints ls 2 title 'exact, {/Symbol e} = 0.3', '' using 1:5 with lines ls 2 dt 2 title 'bound, {/Symbol e} = 0.3'\n"},
      {"subsampling", "Subsampling (slides' table)",
       "exact privacy profiles (worst of both directions) against the table: subsampled Gaussian (sigma = 1), Poisson "
       "(q = 0.01) and with replacement (n = 100, m = 5); binary randomized response (eps0 = 2) counted over m = 10 "
       "records sampled without replacement from n = 100 (zeros are off the log scale)",
       subsampling,
       "set logscale y\nset xlabel '{/Symbol e}'''\nset ylabel '{/Symbol d}'''\nset format y '10^{%L}'\nset key below maxrows 3\n"
       "plot DATA using 1:2 with points ls 1 title 'Poisson, exact', '' using 1:3 with lines ls 1 title 'Poisson, table', "
       "'' using 1:4 with points ls 2 title 'with replacement, exact', '' using 1:5 with lines ls 2 title 'with replacement, table', "
       "'' using 1:6 with points ls 3 title 'randomized response, exact', '' using 1:7 with lines ls 3 title 'randomized response, table'\n"},
  };
  return figures;
}

std::string style_preamble(const std::string& output, bool pdf) {
  // One look for every figure: cairo terminals, a light grid, a boxed opaque key, six distinguishable line styles
  // (colour-blind safe palette, also distinct in grey by dash and point type) and a thin black reference style 9.
  std::string s = pdf ? "set terminal pdfcairo enhanced color size 5in,3.4in font 'Helvetica,10'\n"
                      : "set terminal pngcairo enhanced color size 1000,680 font 'Helvetica,15'\n";
  s += fmt::format("set output '{}'\n", output);
  s += "set datafile separator ','\nset grid linecolor rgb '#cccccc' linewidth 0.5\nset key box opaque spacing 1.1\nset border lw 1\n"
       "set style line 1 lc rgb '#0072B2' lw 2 pt 7 ps 0.8 dt 1\n"
       "set style line 2 lc rgb '#D55E00' lw 2 pt 5 ps 0.8 dt 1\n"
       "set style line 3 lc rgb '#009E73' lw 2 pt 9 ps 0.9 dt 1\n"
       "set style line 4 lc rgb '#CC79A7' lw 2 pt 11 ps 0.9 dt 4\n"
       "set style line 5 lc rgb '#E69F00' lw 2 pt 13 ps 0.9 dt 2\n"
       "set style line 6 lc rgb '#56B4E9' lw 2 pt 3 ps 0.9 dt 3\n"
       "set style line 9 lc rgb 'black' lw 1 dt 2\n";
  return s;
}

void write_csv(const Table& table, const std::filesystem::path& file) {
  std::ofstream out(file);
  if (!out) throw InvalidArgument(fmt::format("cannot write {}", file.string()));
  for (std::size_t i = 0; i < table.columns.size(); ++i) out << (i ? "," : "") << table.columns[i];
  out << "\n";
  out.precision(17);
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out << ",";
      if (std::isfinite(row[i])) out << row[i];  // an empty field is a missing value for gnuplot and spreadsheets
    }
    out << "\n";
  }
}

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

void render(const Figure& figure, const std::filesystem::path& dir, bool reduced) {
  if (!gnuplot_available())
    throw InvalidArgument("gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures");
  std::filesystem::create_directories(dir);
  const auto csv = std::filesystem::absolute(dir / (figure.name + ".csv"));
  write_csv(figure.data(reduced), csv);
  const auto script = dir / (figure.name + ".gp");
  {
    std::ofstream out(script);
    // The data file's quoted path in place of DATA; single quotes doubled inside gnuplot's single-quoted strings.
    auto quoted = [](const std::string& text) {
      std::string q;
      for (char c : text) q += c == '\'' ? std::string("''") : std::string(1, c);
      return "'" + q + "'";
    };
    std::string body;
    const std::string& plot = figure.plot;
    for (std::size_t i = 0; i < plot.size();) {
      if (plot.compare(i, 4, "DATA") == 0) {
        body += quoted(csv.string());
        i += 4;
      } else {
        body += plot[i++];
      }
    }
    const std::string title = "set title " + quoted(figure.title) + "\n";
    out << "# " << figure.description << "\n# data: " << csv.filename().string() << " (columns in its header row)\n";
    out << style_preamble(std::filesystem::absolute(dir / (figure.name + ".pdf")).string(), true) << title << body;
    out << "set output\n" << style_preamble(std::filesystem::absolute(dir / (figure.name + ".png")).string(), false) << title << body;
    out << "set output\n";
  }
  const std::string command = fmt::format("gnuplot '{}' 2>&1", std::filesystem::absolute(script).string());
  if (std::system(command.c_str()) != 0)
    throw NumericalError(fmt::format("gnuplot failed on {}", script.string()));
}

}  // namespace privamp::plots
