#include "verify/explore/explore_report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "numerics/escape.hpp"
#include "numerics/errors.hpp"
#include "numerics/files.hpp"

namespace privamp::verify {

namespace {

std::string g(double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::isnan(x) ? "-" : x > 0 ? "inf" : "-inf"; }

std::string axis_text(const ExploreAxis& a) {
  if (a.kind == ExploreAxis::Kind::choice) {
    std::vector<std::string> v;
    for (const auto& c : a.choices) v.push_back(std::holds_alternative<double>(c) ? g(std::get<double>(c)) : std::get<std::string>(c));
    return fmt::format("choices {{{}}}", fmt::join(v, ", "));
  }
  return fmt::format("{} [{}, {}]{}", a.kind == ExploreAxis::Kind::integer ? "integer" : "real", g(a.min), g(a.max),
                     a.log ? ", log scale" : "");
}

std::string value_text(const Params& p, const std::string& name) {
  if (const auto it = p.numbers.find(name); it != p.numbers.end()) return format_number(it->second);
  if (const auto it = p.words.find(name); it != p.words.end()) return it->second;
  return "?";
}

std::string axes_text(const ExploreResult& r, const Params& p) {
  std::vector<std::string> parts;
  for (const auto& a : r.space.axes) parts.push_back(fmt::format("{}={}", a.name, value_text(p, a.name)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string edges_text(const ExploreResult& r, const Params& point) {
  std::vector<std::string> out;
  for (const ExploreAxis& a : r.space.axes) {
    const auto it = point.numbers.find(a.name);
    if (a.kind == ExploreAxis::Kind::choice || it == point.numbers.end() || !(a.max > a.min)) continue;
    const double v = it->second;
    const bool log = a.log && a.min > 0 && v > 0;
    const auto at = [&](double end) {
      return a.kind == ExploreAxis::Kind::integer ? v == end
             : log ? std::fabs(std::log(v / end)) <= 1e-3 * std::log(a.max / a.min)
                   : std::fabs(v - end) <= 1e-3 * (a.max - a.min);
    };
    if (at(a.min)) out.push_back(fmt::format("{} = {} at its lower end", a.name, format_number(v)));
    else if (at(a.max)) out.push_back(fmt::format("{} = {} at its upper end", a.name, format_number(v)));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

namespace {

// A TOML basic string: the one TOML escaper (bidirectional and invisible characters as \u escapes too).
std::string quoted(const std::string& s) { return escape::toml(s); }

double best_so_far(Goal goal, const std::vector<Evaluation>& e, std::size_t upto, bool ignore) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < upto; ++i) {
    if (!is_candidate(e[i], ignore)) continue;
    const double v = objective(goal, e[i].slack);
    if (std::isnan(best) || v < best) best = v;
  }
  return best;
}

}  // namespace

namespace {
// The ratio of a re-evaluated row in the search's direction, from the logs where the engine has them.
double row_slack_of(Direction direction, const Row& row) {
  const double log_exact = std::isfinite(row.exact.log_value()) ? row.exact.log_value() : std::log(row.exact.value);
  return direction == Direction::lower ? log_exact - std::log(row.bound) : std::log(row.bound) - log_exact;
}
}  // namespace

std::string ratio_text(double slack) {
  if (std::isnan(slack)) return "-";
  if (std::abs(slack) < 700) return fmt::format("{:.6g}", std::exp(slack));
  if (std::isinf(slack)) return slack > 0 ? "inf" : "0";
  return fmt::format("1e{:+.0f}", slack / std::log(10.0));
}

std::string ratio_range_note(Direction direction, const Row& row) {
  const double bl = std::isnan(row.bound_lower) ? row.bound : row.bound_lower, bu = std::isnan(row.bound_upper) ? row.bound : row.bound_upper;
  const double el = row.exact.lower, eu = row.exact.upper;
  if (!(el >= 0) || !(eu >= el) || !(bl >= 0) || !(bu >= bl)) return "";
  // log ends (no overflow of a quotient of tiny values); a 0 denominator gives +inf, a 0 numerator −inf
  const auto lq = [](double num, double den) { return std::log(num) - std::log(den); };
  const double lo = direction == Direction::lower ? lq(el, bu) : lq(bl, eu), hi = direction == Direction::lower ? lq(eu, bl) : lq(bu, el);
  const double at = row_slack_of(direction, row);
  if (std::isnan(lo) || std::isnan(hi) || (std::isfinite(at) && at - lo <= 0.01 && hi - at <= 0.01)) return "";
  return fmt::format(" (the intervals allow {} to {})", ratio_text(lo), ratio_text(hi));
}

std::string slack_ratio_name(Direction direction) {
  return direction == Direction::lower ? "exact/bound" : "bound/exact";
}

std::string explore_stem(const std::string& case_name, const std::string& id) {
  // Letters, digits and single '_' or '-' separators; the case's name cut at a separator before 40 characters.
  auto clean = [](const std::string& text) {
    std::string s;
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) s += c;
      else if ((c == '.' || c == '-') && !s.empty() && s.back() != '_' && s.back() != '-') s += '-';
      else if (!s.empty() && s.back() != '_' && s.back() != '-') s += '_';
    }
    while (!s.empty() && (s.back() == '_' || s.back() == '-')) s.pop_back();
    return s;
  };
  std::string name = clean(case_name);
  if (name.size() > 40) {
    const auto cut = name.find_last_of("_-", 40);
    name = name.substr(0, cut == std::string::npos || cut < 12 ? 40 : cut);
  }
  // A stem never starts with '-' or '.' (an option or a hidden file): names without a letter or digit are "case".
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) name = "case" + name;
  // Cleaning loses characters ("x " and "x", "MY.a" and "MY-a"): six hex digits of a hash of the exact case name and
  // ID keep two different pairs apart (FNV-1a, 64 bits; the same pair gives the same stem on every run).
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : case_name + '\x1f' + id) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return fmt::format("{}-{:06x}", (name + "_" + clean(id)).substr(0, 56), h & 0xFFFFFF);
}

void remove_stale_point_files(const std::filesystem::path& dir, const std::string& stem, std::size_t kept) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  const std::string prefix = stem + "_point";
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !name.starts_with(prefix) || !name.ends_with(".toml")) continue;
    const std::string k = name.substr(prefix.size(), name.size() - prefix.size() - 5);
    if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stoul(k) <= kept) continue;
    std::ifstream in(e.path());
    std::string first;
    std::getline(in, first);
    if (first.starts_with(kPointFileHeader)) {  // written by privamp explore: ours to replace
      in.close();
      std::filesystem::remove(e.path(), ec);
    }
  }
}

std::string divergence_command(const Row& row) {
  if (row.mu.empty() || row.nu.empty()) return "";
  if (!row.divergence) return "";
  std::string flag;
  switch (row.divergence->kind) {
    case Quantity::Kind::renyi: flag = "--renyi " + format_number(row.divergence->parameter); break;
    case Quantity::Kind::hockey_stick: flag = "--hockey-stick " + format_number(row.divergence->parameter); break;
    case Quantity::Kind::renyi_inf: flag = "--renyi inf"; break;
    case Quantity::Kind::kl: flag = "--kl"; break;
    case Quantity::Kind::tv: flag = "--tv"; break;
  }
  auto sh = [](const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  return fmt::format("privamp divergence {} {} {}", sh(row.mu), sh(row.nu), flag);
}

std::string one_point_case(const Case& c, const ExploreResult& r, std::size_t k) {
  const Evaluation& e = r.evaluations.at(r.best_index.at(k));
  const BoundEntry& entry = c.entry(r.id);
  std::string s = fmt::format("{} point {} of the {} search for {} in case '{}' ({}).\n", kPointFileHeader, k + 1,
                              to_string(r.goal), r.id, c.name, c.file);
  s += "# Reproduce: privamp verify THIS_FILE (self-contained";
  s += entry.declared_in.empty() ? ")\n" : fmt::format(": {} is declared below, as in {})\n", r.id, entry.declared_in);
  if (!e.outside()) s += "\n";
  else s += "# This point is outside the bound's hypotheses: verify reports it as not-applicable, with what the formula gives.\n\n";
  if (!entry.declared_in.empty()) s += "[[bound]]\n" + entry.declaration + "\n\n";
  s += "[[case]]\n";
  // The case's name and the point's number, within the loader's limit (a long name is cut, at a character's start).
  const std::string suffix = " (explore point " + std::to_string(k + 1) + ")";
  std::string name = c.name;
  if (name.size() + suffix.size() > kMaxCaseName) {
    std::size_t keep = kMaxCaseName - suffix.size() - 3;
    while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
    name = name.substr(0, keep) + "...";
  }
  s += fmt::format("name = {}\n", quoted(name + suffix));
  s += fmt::format("bounds = [{}]\n", quoted(r.id));
  s += fmt::format("kind = {}\n", quoted(to_string(c.kind)));
  if (c.kind == Case::Kind::laws) s += fmt::format("mu = {}\nnu = {}\n", quoted(c.mu), quoted(c.nu));
  if (c.kind == Case::Kind::kernel) s += fmt::format("kernel = {}\n", quoted(c.kernel));
  if (computes_divergence(c.kind)) {
    s += fmt::format("quantity = {}\n", quoted(quantity_name(c.quantity)));
    if (!c.order.empty()) s += fmt::format("order = {}\n", quoted(c.order));
    s += fmt::format("symmetric = {}\nengine = {}\n", c.symmetric ? "true" : "false", quoted(to_string(c.engine)));
    if (c.cross_check) s += fmt::format("cross_check = {}\n", quoted(to_string(*c.cross_check)));
  }
  s += fmt::format("tolerance = {}\n[case.grid]\n", format_number(c.tolerance));
  const Params p = r.space.point(e.u);
  for (const auto& [name, values] : c.grid) {
    if (const auto it = p.numbers.find(name); it != p.numbers.end()) s += fmt::format("{} = {:.17g}\n", name, it->second);
    else s += fmt::format("{} = {}\n", name, quoted(p.words.at(name)));
  }
  if (!c.derived.empty()) {
    s += "[case.derived]\n";
    for (const auto& [name, formula] : c.derived) s += fmt::format("{} = {}\n", name, quoted(formula));
  }
  return s;
}

// Markdown text from a case file (names, words, regions): one escaper (numerics/escape.hpp).
static std::string md(std::string_view text) { return escape::markdown(text); }

namespace {

// The title, the goal and budget, how the search ended, and the search space.
std::string explore_head(const Case& c, const ExploreResult& r, const ExploreOptions& o) {
  const std::string ratio = slack_ratio_name(r.direction);
  std::string s = fmt::format("# privamp explore: {} on '{}' ({})\n\n", md(r.id), md(c.name), md(c.file));
  s += fmt::format("Goal: **{}** — {}. Budget {}: {} evaluations ({} global Sobol points, {} in local BOBYQA refinements; "
                   "local runs that converge early leave the rest unspent), seed {}{}.\n\n",
                   to_string(r.goal),
                   r.direction == Direction::identity
                       ? std::string(r.goal == Goal::loosest    ? "maximise"
                                     : r.goal == Goal::tightest ? "minimise the absolute value of"
                                                                : "minimise") +
                             " the log-overlap of the exact interval and the formula's enclosure (minus their log-distance "
                             "where they are apart: below 0 refutes the identity)"
                   : r.goal == Goal::loosest  ? "maximise log(" + ratio + ")"
                   : r.goal == Goal::tightest ? "minimise |log(" + ratio + ")|"
                                              : "minimise log(" + ratio + "): below 0 refutes the bound",
                   o.budget, r.evaluations.size(), r.global_points, r.evaluations.size() - r.global_points, o.seed,
                   o.ignore_hypotheses ? ", **hypotheses ignored**" : "");
  if (!r.stopped.empty()) s += fmt::format("**The search was {}**: the budget was not spent.\n\n", md(r.stopped));
  if (r.passed_over > 0)
    s += fmt::format("{} better point(s) re-evaluated in full as errors were passed over for the next distinct candidates "
                     "(the first: {}).\n\n", r.passed_over, md(r.passed_over_reason));
  s += "## Search space\n\n| axis | range | influence | coverage |\n| --- | --- | --- | --- |\n";
  for (std::size_t j = 0; j < r.space.axes.size(); ++j)
    s += fmt::format("| {} | {} | {:.0f}% | {:.0f}% |\n", md(r.space.axes[j].name), md(axis_text(r.space.axes[j])), 100 * r.influence[j],
                     100 * r.coverage[j]);
  std::vector<std::string> fixed;
  for (const auto& [k, v] : r.space.fixed.numbers) fixed.push_back(fmt::format("{}={}", k, format_number(v)));
  for (const auto& [k, v] : r.space.fixed.words) fixed.push_back(fmt::format("{}={}", k, v));  // escaped with the whole list below
  s += fmt::format("\nFixed: {}. Influence: the share of the objective's variance over the global points that the axis "
                   "explains alone (main effect); coverage: the share of its ten bins (or choices) the global phase "
                   "visited.\n\n",
                   fixed.empty() ? "nothing" : md(fmt::format("{}", fmt::join(fixed, ", "))));
  return s;
}

// What the evaluated points were (with a slack, not applicable, errors, zeros, underflows), the region and the
// degenerate points; the number of violating points (and of those outside the hypotheses) for the failures section.
std::string explore_counts(const Case& c, const ExploreResult& r, const ExploreOptions& o, std::size_t& violating,
                           std::size_t& violating_outside) {
  std::string s;
  std::map<Evaluation::Status, std::size_t> counts;
  std::size_t outside = 0, out_of_region = 0, degenerate = 0;
  violating = violating_outside = 0;
  for (const Evaluation& e : r.evaluations) {
    ++counts[e.status];
    outside += e.outside();
    if (e.status == Evaluation::Status::ok) {
      out_of_region += !e.in_region;
      degenerate += e.in_region && !e.degenerate.empty();
    }
    if (e.verdict() == Verdict::violated) {
      ++violating;
      violating_outside += e.outside();
    }
  }
  using S = Evaluation::Status;
  s += fmt::format("Evaluated points: {} with a slack, {} not-applicable (a hypothesis fails), {} errors, {} where the exact "
                   "value is 0 ({}), {} where it is known only from above (an interval [0, u]: no ratio), {} where the "
                   "exact value and {} where the bound underflow double precision (below "
                   "2.2e-308: no ratio), {} where the bound is infinite{}.\n\n",
                   counts[S::ok], counts[S::not_applicable], counts[S::error], counts[S::exact_zero],
                   r.direction == Direction::upper ? "infinitely loose where the bound is positive" : "no ratio",
                   counts[S::exact_bounded_above],
                   counts[S::exact_underflow], counts[S::bound_underflow], counts[S::bound_infinite],
                   o.ignore_hypotheses ? fmt::format("; {} outside the hypotheses", outside) : "");
  if (!r.where.empty())
    s += fmt::format("Region of interest: {} (`where`; exact, bound and ratio = bound/exact are the point's values): {} of the "
                     "points with a slack lie outside it and are not candidates.\n\n",
                     md(fmt::format("{}", fmt::join(r.where, ", "))), out_of_region);
  if (!c.explore_degenerate.empty())
    s += fmt::format("Degenerate where {} (`degenerate`: no amplification happens, so the bound is trivially tight or loose "
                     "there): {} points, searched and reported apart, never as the answer.\n\n",
                     md(fmt::format("{}", fmt::join(c.explore_degenerate, " or "))), degenerate);
  return s;
}

// The best points, re-evaluated, with the commands that reproduce them, and the degenerate optimum if any.
std::string explore_best(const Case& c, const ExploreResult& r, const std::string& ratio, const std::string& stem) {
  std::string s;
  s += fmt::format("## Best points (re-evaluated with the case's engines{})\n\n", c.cross_check ? " and its cross-check" : "");
  if (r.best.empty()) s += "No candidate point: every evaluated point was not-applicable, an error, or without a ratio.\n\n";
  else {
    s += fmt::format("| # | point | exact [interval] | bound | {} | verdict | second route |\n| --- | --- | --- | --- | --- | --- | --- |\n", ratio);
    for (std::size_t k = 0; k < r.best.size(); ++k) {
      const Row& row = r.best[k];
      // The ratio from the logs where the engine has them (values below the smallest double keep their digits).
      const double q_slack = row_slack_of(r.direction, row);
      s += fmt::format("| {} | {} | {} [{}, {}] | {} | {}{} | {}{} | {} |\n", k + 1, md(axes_text(r, row.params)), g(row.exact.value),
                       g(row.exact.lower), g(row.exact.upper), g(row.bound), ratio_text(q_slack), ratio_range_note(r.direction, row),
                       to_string(row.verdict),
                       row.outside.empty() ? "" : " (outside: " + md(row.outside) + ")",
                       row.cross ? fmt::format("{} [{}, {}]", g(row.cross->value), g(row.cross->lower), g(row.cross->upper)) : "none");
    }
    for (std::size_t k = 0; k < r.best.size(); ++k)
      if (const std::string edges = edges_text(r, r.best[k].params); !edges.empty())
        s += fmt::format("\n**#{} lies on the edge of the searched box**: {}. The optimum may lie beyond it; widen the range in "
                         "`[case.explore]` to look.\n", k + 1, md(edges));
    s += "\nReproduce, in this directory (each point file is self-contained):\n\n```sh\n";
    for (std::size_t k = 0; k < r.best.size(); ++k) {
      s += fmt::format("privamp verify {}_point{}.toml\n", stem, k + 1);
      if (const std::string d = divergence_command(r.best[k]); !d.empty()) s += d + "\n";
    }
    s += "```\n\n";
  }
  if (r.degenerate) {
    const Evaluation& d = r.evaluations.at(*r.degenerate_index);
    s += fmt::format("**The optimum over all points is degenerate** ({} holds there): {} = {} at {} (exact {}, bound {}, "
                     "{}). No amplification happens there; the best non-degenerate point is #1 above.\n\n",
                     md(d.degenerate), ratio, ratio_text(d.slack), md(axes_text(r, r.degenerate->params)), g(r.degenerate->exact.value),
                     g(r.degenerate->bound), to_string(r.degenerate->verdict));
  }
  return s;
}

// The best objective as the search went on.
std::string explore_trajectory(const ExploreResult& r, const ExploreOptions& o, const std::string& ratio) {
  if (r.evaluations.empty()) return "## Trajectory\n\nNo evaluation finished.\n";
  std::string s;
  s += fmt::format("## Trajectory\n\nBest objective so far ({}):\n\n| evaluations | best | {} |\n| --- | --- | --- |\n",
                   r.goal == Goal::loosest ? "−log ratio, minimised" : r.goal == Goal::tightest ? "|log ratio|" : "log ratio", ratio);
  std::set<std::size_t> marks;
  for (double f : {0.1, 0.25, 0.5, 0.75}) marks.insert(std::max<std::size_t>(1, static_cast<std::size_t>(f * r.global_points)));
  marks.insert(r.global_points);
  marks.insert(r.evaluations.size());
  for (std::size_t m : marks) {
    if (m == 0 || m > r.evaluations.size()) continue;  // a search stopped by its time limit may end in the global phase
    const double b = best_so_far(r.goal, r.evaluations, m, o.ignore_hypotheses);
    const double slack = r.goal == Goal::loosest ? -b : b;
    s += fmt::format("| {}{} | {} | {} |\n", m, m == r.global_points ? " (end of the global phase)" : "", g(b),
                     r.goal == Goal::tightest ? "exp(±" + g(b) + ")" : ratio_text(slack));
  }
  return s;
}

// Where the conclusion fails: per axis, the values seen at violating points against the others.
std::string explore_failures(const ExploreResult& r, std::size_t violating, std::size_t violating_outside) {
  std::string s;
  if (violating > 0) {
    s += fmt::format("\n## Where the bound fails\n\n{} evaluated point(s) violate the bound during the search ({} of them "
                     "outside the hypotheses). Per axis, the range of the violating points against the range of the "
                     "holding ones, and the violating point with the smallest value:\n\n"
                     "| axis | violating | holding | smallest violating point |\n| --- | --- | --- | --- |\n",
                     violating, violating_outside);
    for (const auto& a : r.space.axes) {
      if (a.kind == ExploreAxis::Kind::choice) {
        std::set<std::string> bad, good;
        for (const Evaluation& e : r.evaluations) {
          if (e.status != Evaluation::Status::ok) continue;
          (e.verdict() == Verdict::violated ? bad : good).insert(value_text(e.point, a.name));
        }
        s += fmt::format("| {} | {{{}}} | {{{}}} | |\n", md(a.name), md(fmt::format("{}", fmt::join(bad, ", "))), md(fmt::format("{}", fmt::join(good, ", "))));
        continue;
      }
      double blo = INFINITY, bhi = -INFINITY, glo = INFINITY, ghi = -INFINITY;
      const Evaluation* smallest = nullptr;
      for (const Evaluation& e : r.evaluations) {
        if (e.status != Evaluation::Status::ok) continue;
        const double v = e.point.numbers.at(a.name);
        if (e.verdict() == Verdict::violated) {
          if (v < blo) smallest = &e;
          blo = std::min(blo, v), bhi = std::max(bhi, v);
        } else {
          glo = std::min(glo, v), ghi = std::max(ghi, v);
        }
      }
      s += fmt::format("| {} | [{}, {}] | [{}, {}] | {} |\n", md(a.name), g(blo), g(bhi), g(glo), g(ghi),
                       smallest ? fmt::format("{} ({} = {}, bound {})", md(axes_text(r, smallest->point)), md(r.id), g(smallest->exact()), g(smallest->bound())) : "");
    }
    s += "\nViolations seen while searching use looser quadrature and no second route; only the re-evaluated rows "
         "above decide.\n";
  }
  return s;
}

}  // namespace

std::string explore_markdown(const Case& c, const ExploreResult& r, const ExploreOptions& o, const std::string& stem) {
  const std::string ratio = slack_ratio_name(r.direction);
  std::size_t violating = 0, violating_outside = 0;
  std::string s = explore_head(c, r, o);
  s += explore_counts(c, r, o, violating, violating_outside);
  s += explore_best(c, r, ratio, stem);
  s += explore_trajectory(r, o, ratio);
  s += explore_failures(r, violating, violating_outside);
  return s;
}

FlatTable explore_table(const ExploreResult& r) {
  FlatTable t;
  const auto axes = [&](std::vector<Cell>* cells, const Params* point) {
    return [&r, cells, point, &t] {
      for (const auto& a : r.space.axes) {
        if (cells) cells->push_back(parameter_cell(*point, a.name));
        else t.columns.push_back(a.name);
      }
    };
  };
  for_each_point_field(Evaluation{}, 0, 0.0, [&](const char* name, const auto&) { t.columns.emplace_back(name); }, axes(nullptr, nullptr));
  for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
    const Evaluation& e = r.evaluations[i];
    std::vector<Cell> cells;
    cells.reserve(t.columns.size());
    for_each_point_field(e, i, objective(r.goal, e.slack), [&](const char*, const auto& value) { cells.emplace_back(value); },
                         axes(&cells, &e.point));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

void write_explore_csv(const ExploreResult& r, const std::filesystem::path& file) { write_table_csv(explore_table(r), file); }


FlatTable frontier_table(const FrontierResult& f) {
  const ExploreResult& r = f.search;
  FlatTable t;
  for_each_frontier_field(FrontierLine{}, f.name, [&](const std::string& name, const Cell&) { t.columns.push_back(name); });
  const Cell empty = std::monostate{};
  for (std::size_t b = 0; b < f.bins.size(); ++b) {
    const FrontierBin& bin = f.bins[b];
    FrontierLine line{static_cast<double>(b + 1), bin.lower, bin.upper, static_cast<double>(bin.candidates), empty, empty, empty,
                      empty, empty, empty, empty, empty, std::numeric_limits<double>::quiet_NaN(), empty, empty};
    if (bin.best) {
      const Row& row = *bin.best;
      const auto v = row.params.numbers.find(f.name);
      const Evaluation& e = r.evaluations.at(*bin.best_index);
      line.best_x = v == row.params.numbers.end() ? with_search_values(e.point, e.exact(), e.bound()).numbers.at(f.name) : v->second;
      line.best_ratio = std::exp(row_slack_of(r.direction, row));
      line.point = axes_text(r, row.params);
      line.exact = row.exact.value;
      line.exact_lower = row.exact.lower;
      line.exact_upper = row.exact.upper;
      line.bound = row.bound;
      line.verdict = to_string(row.verdict);
    }
    if (bin.degenerate) {
      line.degenerate_ratio = std::exp(row_slack_of(r.direction, *bin.degenerate));
      line.degenerate_point = axes_text(r, bin.degenerate->params);
      line.degenerate_condition = r.evaluations.at(*bin.degenerate_index).degenerate;
    }
    std::vector<Cell> cells;
    cells.reserve(t.columns.size());
    for_each_frontier_field(line, f.name, [&](const std::string&, const Cell& c) { cells.push_back(c); });
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string frontier_markdown(const Case& c, const FrontierResult& f, const ExploreOptions& o, const std::string& stem) {
  // Whether the bin had its own local search, with how many evaluations, or why not.
  const auto refined = [](const FrontierBin& bin) {
    return bin.not_refined.empty() ? fmt::format("{} evaluations", bin.refined) : "no: " + md(bin.not_refined);
  };
  const ExploreResult& r = f.search;
  const std::string ratio = slack_ratio_name(r.direction);
  std::string s = fmt::format("# privamp explore: the {} frontier of {} along {} on '{}' ({})\n\n", to_string(r.goal), md(r.id), md(f.name),
                              md(c.name), md(c.file));
  s += fmt::format("The best {} ({}) as a function of `{}`: {} bins of equal {} width; the global phase's {} Sobol points "
                   "are binned by their value of `{}`, each bin is then searched on its own where its share of the budget "
                   "allows (local refinement with the bin as a constraint; the column `refined` says), and its best point is re-evaluated with the case's engines{}. Budget {}, seed {}; {} "
                   "evaluations in all.\n\n",
                   ratio, to_string(r.goal), f.name, f.bins.size(), f.log ? "logarithmic" : "linear", r.global_points, f.name,
                   c.cross_check ? " and its cross-check" : "", o.budget, o.seed, r.evaluations.size());
  if (!r.where.empty()) s += fmt::format("Region of interest: {}.\n\n", md(fmt::format("{}", fmt::join(r.where, ", "))));
  if (!c.explore_degenerate.empty())
    s += fmt::format("Degenerate where {}: such points are kept apart; a bin whose optimum is degenerate lists it beside "
                     "its best non-degenerate point.\n\n",
                     md(fmt::format("{}", fmt::join(c.explore_degenerate, " or "))));
  s += fmt::format("| bin | {} | candidates | refined | best {} | at | exact [interval] | bound | verdict | degenerate optimum |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
                   f.name, ratio);
  for (std::size_t b = 0; b < f.bins.size(); ++b) {
    const FrontierBin& bin = f.bins[b];
    const std::string range = fmt::format("[{}, {}{}", g(bin.lower), g(bin.upper), b + 1 == f.bins.size() ? "]" : ")");
    if (!bin.best) {
      s += fmt::format("| {} | {} | {} | {} | - | no candidate | | | | {} |\n", b + 1, range, bin.candidates, refined(bin),
                       bin.degenerate ? ratio_text(row_slack_of(r.direction, *bin.degenerate)) + " (degenerate only)" : "");
      continue;
    }
    const Row& row = *bin.best;
    s += fmt::format("| {} | {} | {} | {} | {}{} | {} | {} [{}, {}] | {} | {} | {} |\n", b + 1, range, bin.candidates, refined(bin),
                     ratio_text(row_slack_of(r.direction, row)), ratio_range_note(r.direction, row), md(axes_text(r, row.params)), g(row.exact.value), g(row.exact.lower),
                     g(row.exact.upper), g(row.bound), to_string(row.verdict),
                     bin.degenerate ? fmt::format("{} at {} ({})", ratio_text(row_slack_of(r.direction, *bin.degenerate)),
                                                  md(axes_text(r, bin.degenerate->params)), md(r.evaluations.at(*bin.degenerate_index).degenerate))
                                    : "");
  }
  s += fmt::format("\nEvery evaluated point: {}.csv (its `{}` in the point's parameters); the figure: {}_frontier.pdf/.png.\n", stem,
                   f.name, stem);
  return s;
}

namespace {
// Optional parts of a search as tree values: null where absent.
Tree text_or_null(const std::string& s) { return s.empty() ? Tree(nullptr) : Tree(s); }
Tree index_or_null(const std::optional<std::size_t>& i) { return i ? Tree(*i) : Tree(nullptr); }
Tree row_or_null(const std::optional<Row>& row) { return row ? table_records(flat_table({*row}))[0] : Tree(nullptr); }

}  // namespace

namespace {
// A search's record with a null frontier.
SearchRecord search_record(const ExploreResult& r, const ExploreOptions& o) {
  SearchRecord s;
  s.file = r.file;
  s.case_name = r.case_name;
  s.id = r.id;
  s.goal = to_string(r.goal);
  s.direction = to_string(r.direction);
  s.budget = o.budget;
  s.seed = o.seed;
  s.ignore_hypotheses = o.ignore_hypotheses;
  s.axes = Tree::array();
  s.ranges = s.influence = s.coverage = Tree::object();
  for (std::size_t a = 0; a < r.space.axes.size(); ++a) {
    const std::string& name = r.space.axes[a].name;
    s.axes.push_back(name);
    s.ranges[name] = axis_text(r.space.axes[a]);
    if (a < r.influence.size()) s.influence[name] = r.influence[a];
    if (a < r.coverage.size()) s.coverage[name] = r.coverage[a];
  }
  s.where = r.where;
  s.global_points = r.global_points;
  s.points = table_records(explore_table(r));
  s.best = table_records(flat_table(r.best));
  s.best_index = r.best_index;
  s.degenerate = row_or_null(r.degenerate);
  s.degenerate_index = index_or_null(r.degenerate_index);
  s.stopped = text_or_null(r.stopped);
  s.passed_over = r.passed_over;
  s.passed_over_reason = text_or_null(r.passed_over_reason);
  return s;
}
}  // namespace

Tree explore_json(const ExploreResult& r, const ExploreOptions& o) {
  SearchRecord s = search_record(r, o);
  return record(s);
}

Tree frontier_json(const FrontierResult& f, const ExploreOptions& o) {
  FrontierRecord frontier;
  frontier.name = f.name;
  frontier.log = f.log;
  frontier.bins = Tree::array();
  for (const FrontierBin& bin : f.bins) {
    BinRecord b;
    b.lower = bin.lower;
    b.upper = bin.upper;
    b.candidates = bin.candidates;
    b.refined = bin.refined;
    b.not_refined = text_or_null(bin.not_refined);
    b.best_index = index_or_null(bin.best_index);
    b.best = row_or_null(bin.best);
    b.degenerate_index = index_or_null(bin.degenerate_index);
    b.degenerate = row_or_null(bin.degenerate);
    b.degenerate_condition = bin.degenerate_index ? f.search.evaluations.at(*bin.degenerate_index).degenerate : std::string();
    frontier.bins.push_back(record(b));
  }
  SearchRecord s = search_record(f.search, o);
  s.frontier = record(frontier);
  return record(s);
}

}  // namespace privamp::verify
