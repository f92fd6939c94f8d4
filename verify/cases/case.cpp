#include "verify/cases/case.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/work_limit.hpp"
#include "numerics/files.hpp"
#include "numerics/range.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/language/expression.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/bounds/declared.hpp"
#include "verify/input/toml_reader.hpp"
#include "verify/divergence/worst_case.hpp"

namespace privamp::verify {

namespace {
constexpr std::pair<Case::Kind, const char*> kCaseKinds[] = {
    {Case::Kind::laws, "laws"}, {Case::Kind::kernel, "kernel"}, {Case::Kind::property, "property"}, {Case::Kind::value, "value"}};
}  // namespace

std::string to_string(Case::Kind kind) {
  for (const auto& [k, name] : kCaseKinds)
    if (k == kind) return name;
  return "?";
}

namespace {
// Derived parameters may refer to each other: resolved in passes, each evaluating those whose inputs are known
// (TOML tables are unordered). `order`, if given, receives them in the order they resolved.
void resolve_derived(const std::vector<std::pair<std::string, std::string>>& derived, Params& p,
                     std::vector<std::pair<std::string, std::string>>* order) {
  std::vector<std::pair<std::string, std::string>> pending = derived;
  while (!pending.empty()) {
    std::vector<std::pair<std::string, std::string>> still;
    std::string last_error;
    for (const auto& entry : pending) {
      try {
        p.numbers[entry.first] = evaluate_derived(entry.second, p);
        if (order) order->push_back(entry);
      } catch (const InvalidArgument& e) {
        still.push_back(entry);
        last_error = e.what();
      }
    }
    if (still.size() == pending.size()) invalid_input("derived parameters: {}", last_error);
    pending = std::move(still);
  }
}
}  // namespace

Params Case::with_derived(Params p) const {
  resolve_derived(derived, p, nullptr);  // one pass when `derived` is in dependency order (the loader sorts it)
  return p;
}

// Any kernel stays put with probability `laziness` when the point has that parameter (lazy_dirichlet requires it).
sim::FiniteKernel Case::kernel_at(const Params& p) const {
  const std::string& kind = kernel;
  // Integers in range before any conversion (a kernel's work grows as states^3).
  auto integer = [&](const char* n, double lo, double hi) {
    const double v = p.at(n);
    if (!(v >= lo && v <= hi && v == std::floor(v)))
      throw_invalid("kernel " + kind, n, v, fmt::format("an integer with {} <= {} <= {}", format_number(lo), n, format_number(hi)));
    return static_cast<int>(v);
  };
  const auto seed = [&] { return static_cast<std::uint64_t>(integer("seed", 0, 2147483647)); };
  auto lazy = [&](sim::FiniteKernel k) { return p.numbers.count("laziness") ? sim::lazy_kernel(k, p.at("laziness")) : k; };
  if (kind == "randomized_response") return lazy(sim::randomized_response_kernel(integer("k", 2, 1024), p.at("eps0")));
  if (kind == "dirichlet" || kind == "lazy_dirichlet") {
    if (kind == "lazy_dirichlet") p.at("laziness");  // required (names the missing parameter)
    return lazy(sim::random_dirichlet_kernel(integer("states", 1, 1024), p.at("concentration"), seed()));
  }
  if (kind == "sparse")
    return lazy(sim::random_sparse_kernel(integer("states", 1, 1024), integer("per_row", 1, 1024), seed()));
  invalid_input("kernel = '{}': allowed randomized_response, dirichlet, lazy_dirichlet, sparse", kind);
}

Params with_search_values(Params point, double exact, double bound) {
  const auto tiny = [](double x) { return x != 0 && std::abs(x) < std::numeric_limits<double>::min(); };
  point.numbers["exact"] = exact;
  point.numbers["bound"] = bound;
  point.numbers["ratio"] = exact == 0 || tiny(exact) || tiny(bound) ? std::numeric_limits<double>::quiet_NaN() : bound / exact;
  return point;
}

std::vector<Params> Case::points(const std::function<void(std::size_t, std::size_t)>& progress) const {
  std::vector<Params> out{Params{}};
  for (const auto& [key, values] : grid) {
    std::vector<Params> next;
    for (const Params& base : out)
      for (const auto& v : values) {
        Params p = base;
        if (std::holds_alternative<double>(v)) p.numbers[key] = std::get<double>(v);
        else p.words[key] = std::get<std::string>(v);
        next.push_back(std::move(p));
      }
    out = std::move(next);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = with_derived(std::move(out[i]));
    if (progress) progress(i + 1, out.size());
  }
  return out;
}

namespace {

bool is_parameter_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Derived parameters per case: they are resolved by repeated passes, so their number bounds the work.
constexpr std::size_t kMaxDerived = 256;

// A word of a grid or a search (a law's name, a map, a formula): printed in every output, so held to the text policy
// of names (escape::text_problem), and distinct words stay distinct once printed.
std::string word(const TomlReader& reader, const toml::node& e, const std::string& key) {
  std::string w(**e.as_string());
  if (const std::string problem = escape::text_problem(w); !problem.empty()) reader.fail(&e, key, "holds " + problem);
  return w;
}

// One value of a grid list: a number or a word.
std::variant<double, std::string> grid_value(const TomlReader& reader, const toml::node& e, const std::string& key) {
  if (auto d = e.value<double>()) {
    // TOML's inf and nan: a parameter is a finite number (nan once printed as an empty cell, inf turned rows into
    // "not applicable" with a reason about a hypothesis).
    if (!std::isfinite(*d)) reader.fail(&e, key, fmt::format("{} is not a finite number (a parameter is finite)", *d));
    return *d;
  }
  if (e.is_string()) return word(reader, e, key);
  if (e.is_integer()) reader.fail(&e, key, "an integer beyond 2^53 has no exact double: write it as a number with a point");
  reader.fail(&e, key, "values must be numbers or strings");
}

// The checks of a case at every point before anything runs (Reader::check_points): each failure names the file,
// line and key through the reader.
// The loader's work at every point (derived parameters, hypotheses and formulas that call divergences) bounded by its
// measured cost, as the runs are (numerics/work_limit.hpp): projected from the first points once they have taken 2 s,
// a load past kMaxLoadSeconds is refused with the projection. (400 points whose `requires` called tv() ran a minute
// before the first word, and 100,000 would have run for hours; --max-seconds applied only after the load.)
constexpr double kMaxLoadSeconds = 60;
std::function<void(std::size_t, std::size_t)> load_limit(const std::string& what) {
  return [what, start = std::chrono::steady_clock::now()](std::size_t done, std::size_t total) {
    if (done == 0 || done >= total) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed < 2) return;
    if (const double projected = elapsed * static_cast<double>(total) / static_cast<double>(done); projected > kMaxLoadSeconds)
      invalid_input("{} at its {} points would take about {} at the rate of the first {} ({} so far); a load may take at most {} "
                    "(divergence calls in derived parameters, requires and formulas run at every point when a case is loaded): "
                    "give fewer points, or compute the value in a law or a bound rather than at load",
                    what, total, duration_text(projected), done, duration_text(elapsed), duration_text(kMaxLoadSeconds));
  };
}

class PointChecks {
 public:
  PointChecks(const TomlReader& reader, const DeclaredBounds& declared, const Case& c, const toml::table& t)
      : reader_(reader), declared_(declared), c(c), t(t) {}

  // Every point, before anything runs, and every corner of the search space: derived parameters, the kernel, the
  // templates (law names, parameter names and syntax; ranges are checked when a law is built), the parameters each
  // entry declares, the formulas of declared bounds and the order with its allowed range.
  void run() const {
    std::set<std::string> checked_formulas;
    const std::vector<PointToCheck> points = points_to_check();
    const auto limit = load_limit("checking the case's hypotheses, bounds and formulas");
    for (std::size_t i = 0; i < points.size(); ++i) {
      try {
        limit(i, points.size());
      } catch (const InvalidArgument& e) {
        reader_.fail(t.get("grid"), "grid", e.what());
      }
      const PointToCheck& point = points[i];
      Params q = point.params;
      if (c.kind == Case::Kind::kernel) check_kernel_at(point, q);
      if (c.kind == Case::Kind::laws) check_laws_at(point);
      check_bounds_at(point, q, checked_formulas);
      // The search's conditions: names and syntax once (with exact, bound and ratio set to 1), work everywhere.
      for (const auto* list : {&c.explore_where, &c.explore_degenerate})
        for (const std::string& condition : *list) try {
            Params r = with_search_values(q, 1, 1);
            check_formula_work(condition, r);
            if (checked_formulas.insert("explore: " + condition).second) evaluate_formula(condition, r);
          } catch (const InvalidArgument& e) {
            reader_.fail(t.get("explore"), list == &c.explore_where ? "explore.where" : "explore.degenerate", where(point) + e.what());
          }
      if (!c.order.empty()) try {
          Quantity::of(c.quantity, evaluate_formula(c.order, point.params));
        } catch (const InvalidArgument& e) {
          reader_.fail(t.get("order"), "order", where(point) + e.what());
        }
    }
  }


 private:
  struct PointToCheck {
    Params params;
    std::string axis;  // the explore axis at one of its ends (empty: a grid point)
  };

  // The grid's points, then the search space's corners, checked like grid points: each explore axis at its ends (or
  // every choice), the other parameters at the first grid point.
  std::vector<PointToCheck> points_to_check() const {
    const toml::node* g = t.get("grid");
    std::vector<PointToCheck> points;
    try {
      for (Params& p : c.points(load_limit("computing the derived parameters"))) points.push_back({std::move(p), ""});
    } catch (const InvalidArgument& e) {
      reader_.fail(t.get("derived") ? t.get("derived") : g, "derived", e.what());
    }
    if (points.empty()) reader_.fail(g, "grid", "no points");
    for (const ExploreAxis& a : c.explore) {
      std::vector<std::variant<double, std::string>> ends = a.choices;
      if (a.kind != ExploreAxis::Kind::choice) ends = {a.min, a.max};
      for (const auto& v : ends) {
        Params p = points.front().params;
        if (const double* d = std::get_if<double>(&v)) {
          p.words.erase(a.name);
          p.numbers[a.name] = *d;
        } else {
          p.numbers.erase(a.name);
          p.words[a.name] = std::get<std::string>(v);
        }
        try {
          points.push_back({c.with_derived(std::move(p)), a.name});
        } catch (const InvalidArgument& e) {
          reader_.fail(t.get("explore"), "explore." + a.name, e.what());
        }
      }
    }
    return points;
  }

  // "at alpha=2, sigma=1: ", the prefix of a message about one point.
  static std::string where(const PointToCheck& point) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : point.params.numbers) parts.push_back(fmt::format("{}={}", k, format_number(v)));
    for (const auto& [k, v] : point.params.words) parts.push_back(fmt::format("{}={}", k, v));
    return fmt::format("at {}: ", fmt::join(parts, ", "));
  }

  // A kernel case's kernel at the point, its size bounded (the exact worst case runs over states^4 maps); the
  // constants Theorem 1's entries read are added to q.
  void check_kernel_at(const PointToCheck& point, Params& q) const {
    try {
      const sim::FiniteKernel kernel = c.kernel_at(point.params);
      if (kernel.size() > kMaxWorstCaseStates)
        invalid_input("{} states; a kernel case computes the exact worst case over states^4 maps "
                      "of the canonical pair: at most {} states", kernel.size(), kMaxWorstCaseStates);
      add_kernel_constants(kernel, q);  // O(states^3): cheap at 64 states
    } catch (const InvalidArgument& e) {
      reader_.fail(t.get("kernel"), "kernel", where(point) + e.what());
    }
  }

  // Both laws at the point, built, in one dimension.
  void check_laws_at(const PointToCheck& point) const {
    long dimension[2] = {1, 1};
    for (const char* key : {"mu", "nu"}) try {
        dimension[key[0] == 'n'] = check_law(key[0] == 'm' ? c.mu : c.nu, point.params);
      } catch (const InvalidArgument& e) {
        reader_.fail(t.get(key), key, where(point) + e.what());
      }
    if (dimension[0] != dimension[1])
      reader_.fail(t.get("nu"), "nu", fmt::format("{}the laws live in different dimensions: mu in R^{}, nu in R^{}", where(point),
                                          dimension[0], dimension[1]));
  }

  // Each bound's declared parameters at the point (the failure names where the parameter's value comes from: its
  // explore range, grid list or derived formula), and its formula: at every point where it is cheap (a value that is
  // not finite at one of them is refused here, not found later as an error row), once per case where it calls
  // divergences (it costs what they cost).
  void check_bounds_at(const PointToCheck& point, const Params& q, std::set<std::string>& checked_formulas) const {
    const toml::node* g = t.get("grid");
    const auto source = [&](const std::string& name) -> std::pair<const toml::node*, std::string> {
      if (!point.axis.empty() && point.axis == name) return {t.get("explore"), "explore." + name};
      if (const toml::node* d = t.get("derived"); d && d->is_table() && d->as_table()->get(name)) return {d->as_table()->get(name), "derived." + name};
      if (g->as_table()->get(name)) return {g->as_table()->get(name), "grid." + name};
      return {g, "grid"};
    };
    for (const std::string& id : c.bounds) {
      const BoundEntry& e = find_bound(id, declared_);
      std::optional<ParameterProblem> problem = check_parameters(e.parameters, q);
      if (!problem && c.kind == Case::Kind::value) problem = check_parameters(e.value()->parameters, q);
      if (problem) {
        const auto [node, key] = source(problem->name);
        reader_.fail(node, key, fmt::format("{}{} ({}) {}", where(point), id, declared_at(e), problem->message));
      }
      if (e.formula.empty()) continue;
      try {
        const bool cheap = check_formula_work(e.formula, q) < static_cast<double>(sim::kDivergenceWork);
        if (!e.outside(q) && (cheap || !checked_formulas.count(id))) {
          e.bound(q);  // syntax, parameter names, the laws inside
          if (const DivergenceCheck* d = e.divergence(); d && d->order) d->order(q);
          checked_formulas.insert(id);
        }
      } catch (const InvalidArgument& err) {
        reader_.fail(t.get("bounds"), "bounds", fmt::format("{} ({}): {}{}", id, e.declared_in, where(point), err.what()));
      }
    }
  }

  const TomlReader& reader_;
  const DeclaredBounds& declared_;
  const Case& c;
  const toml::table& t;
};

class Reader : public TomlReader {
 public:
  explicit Reader(std::string file, std::shared_ptr<const DeclaredBounds> declared = nullptr)
      : TomlReader(std::move(file)), declared_(declared ? std::move(declared) : std::make_shared<const DeclaredBounds>()) {}

  // A grid axis given as a range: {from = a, to = b, points = n, scale = "linear" | "log"} (both ends included).
  std::vector<std::variant<double, std::string>> grid_range(const toml::table& r, const std::string& key) const {
    check_keys(r, kGridRangeKeys, key + ".");
    const double a = number(r, "from"), b = number(r, "to"), n = number(r, "points");
    if (!std::isfinite(a)) fail(&r, key + ".from", "missing or not finite");
    if (!std::isfinite(b)) fail(&r, key + ".to", "missing or not finite");
    if (!(n >= 2 && n <= 100000 && n == std::floor(n))) fail(r.get("points"), key + ".points", "must be an integer in [2, 100000]");
    const std::string scale = text(r, "scale", "linear");
    if (scale != "linear" && scale != "log") fail(r.get("scale"), key + ".scale", "must be linear or log");
    if (scale == "log" && !(a > 0 && b > 0)) fail(&r, key, "a log-scale range needs from > 0 and to > 0");
    if (!(b > a)) fail(r.get("to"), key + ".to", fmt::format("must exceed from = {}", format_number(a)));
    std::vector<std::variant<double, std::string>> values;
    for (int i = 0; i < static_cast<int>(n); ++i) {
      // Linear points as weighted means: integer ends give integer points exactly (where the products overflow, as
      // for [-1e308, 1e308], the weights are divided first).
      double x = (a * (n - 1 - i) + b * i) / (n - 1);
      if (!std::isfinite(x)) x = a * ((n - 1 - i) / (n - 1)) + b * (i / (n - 1));
      values.emplace_back(scale == "log" ? log_spaced(a, b, i, static_cast<long>(n)) : i + 1 == static_cast<int>(n) ? b : x);
    }
    return values;
  }

  // [case.explore]'s conditions: a list of formula strings (checked at every point in check_points).
  std::vector<std::string> conditions(const toml::node& v, const std::string& key) const {
    if (!v.is_array()) fail(&v, key, "must be a list of conditions, e.g. [\"exact >= 1e-12\", \"gamma_doeblin <= 0.9\"]");
    std::vector<std::string> out;
    for (const auto& e : *v.as_array()) {
      if (!e.is_string() || (**e.as_string()).find_first_not_of(" \t") == std::string::npos)
        fail(&e, key, "conditions must be non-empty formula strings");
      out.push_back(**e.as_string());
    }
    if (out.size() > 64) fail(&v, key, fmt::format("{} conditions; at most 64", out.size()));
    return out;
  }

  // [case.explore]: each key a grid parameter, as {min, max, scale, integer} or a list of choices; and the
  // conditions `where` and `degenerate`.
  std::vector<ExploreAxis> explore_axes(const toml::node& node, Case& c) const {
    if (!node.is_table()) fail(&node, "explore", "must be a table of ranges ({min = a, max = b}) or lists of choices");
    std::vector<ExploreAxis> axes;
    for (const auto& [k, v] : *node.as_table()) {
      const std::string name(k.str()), key = "explore." + name;
      if (name == "where" || name == "degenerate") {
        (name == "where" ? c.explore_where : c.explore_degenerate) = conditions(v, key);
        continue;
      }
      const auto in_grid = std::find_if(c.grid.begin(), c.grid.end(), [&](const auto& g) { return g.first == name; });
      if (in_grid == c.grid.end()) fail(&v, key, "is not a grid parameter of the case (a range replaces a grid axis)");
      ExploreAxis a;
      a.name = name;
      if (v.is_array()) {
        a.kind = ExploreAxis::Kind::choice;
        for (const auto& e : *v.as_array()) {
          if (auto d = e.value<double>()) a.choices.emplace_back(*d);
          else if (e.is_string()) a.choices.emplace_back(word(*this, e, key));
          else fail(&e, key, "choices must be numbers or strings");
        }
        if (a.choices.empty()) fail(&v, key, "empty list of choices");
      } else if (v.is_table()) {
        const toml::table& r = *v.as_table();
        check_keys(r, kExploreRangeKeys, key + ".");
        a.min = number(r, "min");
        a.max = number(r, "max");
        if (!std::isfinite(a.min)) fail(&r, key + ".min", "missing or not finite");
        if (!std::isfinite(a.max)) fail(&r, key + ".max", "missing or not finite");
        if (!(a.max > a.min)) fail(r.get("max"), key + ".max", fmt::format("must exceed min = {}", format_number(a.min)));
        const std::string scale = text(r, "scale", "linear");
        if (scale != "linear" && scale != "log") fail(r.get("scale"), key + ".scale", "must be linear or log");
        a.log = scale == "log";
        if (a.log && !(a.min > 0)) fail(&r, key, "a log-scale range needs min > 0");
        if (r.get("label") && !r.get("label")->is_string()) fail(r.get("label"), key + ".label", "must be a string");
        a.label = text(r, "label", "");
        if (r.get("label") && a.label.find_first_not_of(' ') == std::string::npos) fail(r.get("label"), key + ".label", "must not be blank (leave it out for the name)");
        if (const std::string problem = escape::text_problem(a.label); !problem.empty()) fail(r.get("label"), key + ".label", "holds " + problem);
        if (a.label.size() > 80) fail(r.get("label"), key + ".label", fmt::format("{} bytes; at most 80", a.label.size()));
        if (boolean(r, "integer", false)) {
          a.kind = ExploreAxis::Kind::integer;
          if (a.min != std::floor(a.min) || a.max != std::floor(a.max)) fail(&r, key, "an integer range needs integer ends");
        }
      } else {
        fail(&v, key, "must be a range {min = a, max = b} or a list of choices");
      }
      axes.push_back(std::move(a));
    }
    return axes;
  }

  Case read(const toml::table& t) const {
    check_keys(t, kCaseKeys);
    Case c;
    c.file = file_;
    c.line = static_cast<int>(t.source().begin.line);
    c.declared = declared_;
    read_name_and_bounds(t, c);
    read_kind(t, c);
    read_engines(t, c);
    read_grid(t, c);
    read_derived(t, c);
    if (const toml::node* e = t.get("explore")) c.explore = explore_axes(*e, c);
    check_entries(c, t);
    check_points(c, t);
    return c;
  }

  void read_name_and_bounds(const toml::table& t, Case& c) const {
    c.name = text(t, "name");
    if (c.name.find_first_not_of(" \t") == std::string::npos) fail(t.get("name"), "name", "must not be empty");
    if (c.name.size() > kMaxCaseName) fail(t.get("name"), "name", fmt::format("{} characters; at most {}", c.name.size(), kMaxCaseName));
    if (const std::string problem = escape::text_problem(c.name); !problem.empty()) fail(t.get("name"), "name", "holds " + problem);
    const toml::node* b = t.get("bounds");
    if (!b || !b->is_array() || b->as_array()->empty()) fail(b ? b : &t, "bounds", "must be a non-empty list of theorem IDs");
    for (const auto& e : *b->as_array()) {
      if (!e.is_string()) fail(&e, "bounds", "must list strings");
      try {
        entry(**e.as_string());
      } catch (const InvalidArgument& err) {
        fail(&e, "bounds", err.what());
      }
      c.bounds.push_back(**e.as_string());
    }
  }

  // The case's kind and the keys of that kind only: a key the kind ignores is a mistake, not a no-op.
  void read_kind(const toml::table& t, Case& c) const {
    const std::string kind = text(t, "kind", "laws");
    const auto kind_entry = std::find_if(std::begin(kCaseKinds), std::end(kCaseKinds), [&](const auto& k) { return kind == k.second; });
    if (kind_entry == std::end(kCaseKinds)) fail(t.get("kind"), "kind", "must be laws, kernel, property or value");
    c.kind = kind_entry->first;
    for (const char* key : {"mu", "nu"})
      if (c.kind != Case::Kind::laws && t.get(key)) fail(t.get(key), key, fmt::format("only laws cases take {} (this case is of kind {})", key, kind));
    if (c.kind != Case::Kind::kernel && t.get("kernel"))
      fail(t.get("kernel"), "kernel", fmt::format("only kernel cases take kernel (this case is of kind {})", kind));
    if (c.kind == Case::Kind::laws) {
      c.mu = text(t, "mu");
      c.nu = text(t, "nu");
    }
    if (c.kind == Case::Kind::kernel) c.kernel = text(t, "kernel");
    if (!computes_divergence(c.kind)) return;
    const std::string q = text(t, "quantity");
    const auto quantity = parse_quantity_kind(q);
    if (!quantity) fail(t.get("quantity"), "quantity", fmt::format("must be {}", kQuantityNames));
    c.quantity = *quantity;
    if (sim::has_order(c.quantity)) {
      c.order = text(t, "order");
      if (c.order.find_first_not_of(" \t") == std::string::npos) fail(t.get("order"), "order", "must not be empty (a formula such as \"{alpha}\")");
    } else if (t.get("order")) {
      fail(t.get("order"), "order", "only renyi and hockey_stick take an order");
    }
  }

  void read_engines(const toml::table& t, Case& c) const {
    c.symmetric = boolean(t, "symmetric", false);
    try {
      c.engine = parse_engine(text(t, "engine", "auto"));
    } catch (const InvalidArgument& e) {
      fail(t.get("engine"), "engine", e.what());
    }
    if (t.get("cross_check")) {
      try {
        c.cross_check = parse_engine(text(t, "cross_check"));
      } catch (const InvalidArgument& e) {
        fail(t.get("cross_check"), "cross_check", e.what());
      }
      // A second route is another method: the engine itself again repeats its failures and read as a confirmation.
      if (*c.cross_check == c.engine)
        fail(t.get("cross_check"), "cross_check",
             fmt::format("'{}' is the case's own engine: a cross-check must be another engine (its failures would repeat)",
                         text(t, "cross_check")));
    }
    c.tolerance = number(t, "tolerance", 1e-6);
    if (!(c.tolerance >= 0 && c.tolerance < 1)) fail(t.get("tolerance"), "tolerance", "must be in [0, 1)");
  }

  // [case.grid]: each key a value, a list or a range; the product's size bounded before it is expanded.
  void read_grid(const toml::table& t, Case& c) const {
    const toml::node* g = t.get("grid");
    if (!g || !g->is_table()) fail(g ? g : &t, "grid", "must be a table of parameter lists");
    for (const auto& [k, v] : *g->as_table()) {
      const std::string key(k.str());
      if (!is_parameter_name(key))
        fail(&v, "grid." + key, "a parameter name is a letter or '_' followed by letters, digits or '_' (at most 64)");
      std::vector<std::variant<double, std::string>> values;
      auto add = [&](const toml::node& e) { values.push_back(grid_value(*this, e, "grid." + key)); };
      if (v.is_array()) {
        for (const auto& e : *v.as_array()) add(e);
      } else if (v.is_table()) {
        values = grid_range(*v.as_table(), "grid." + key);
      } else {
        add(v);
      }
      if (values.empty()) fail(&v, "grid." + key, "empty list");
      // Each point once (1, 1.0 and 1e0 are one number; a range finer than the doubles repeats its points): a
      // repeated point made two rows of one key, which the golden file written from them then refused.
      std::vector<std::variant<double, std::string>> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
        fail(&v, "grid." + key,
             fmt::format("the value {} appears twice: each grid point once",
                         std::holds_alternative<double>(*twice) ? format_number(std::get<double>(*twice)) : std::get<std::string>(*twice)));
      c.grid.emplace_back(key, std::move(values));
    }
    double size = 1;
    for (const auto& [key, values] : c.grid) size *= static_cast<double>(values.size());
    if (size > 100000) fail(g, "grid", fmt::format("{:.0f} points: at most 100000", size));
  }

  // [case.derived]: formulas of the grid's parameters, kept in the order they resolve at the first grid point, so
  // that every point needs one pass (a chain written backwards would otherwise cost passes times parameters at each
  // point); an error there is reported by check_points.
  void read_derived(const toml::table& t, Case& c) const {
    const toml::node* d = t.get("derived");
    if (!d) return;
    if (!d->is_table()) fail(d, "derived", "must be a table of formulas");
    if (d->as_table()->size() > kMaxDerived)
      fail(d, "derived", fmt::format("{} derived parameters; at most {}", d->as_table()->size(), kMaxDerived));
    for (const auto& [k, v] : *d->as_table()) {
      if (!is_parameter_name(std::string(k.str())))
        fail(&v, "derived." + std::string(k.str()), "a parameter name is a letter or '_' followed by letters, digits or '_' (at most 64)");
      if (!v.is_string()) fail(&v, "derived." + std::string(k.str()), "must be a formula string");
      const auto in_grid = std::find_if(c.grid.begin(), c.grid.end(), [&](const auto& e) { return e.first == k.str(); });
      if (in_grid != c.grid.end())
        fail(&v, "derived." + std::string(k.str()), "is also a grid parameter: a derived parameter may not override it");
      c.derived.emplace_back(std::string(k.str()), std::string(**v.as_string()));
    }
    if (c.derived.empty()) return;
    Params first;
    for (const auto& [key, values] : c.grid) {
      if (const double* x = std::get_if<double>(&values.front())) first.numbers[key] = *x;
      else first.words[key] = std::get<std::string>(values.front());
    }
    std::vector<std::pair<std::string, std::string>> order;
    try {
      resolve_derived(c.derived, first, &order);
      c.derived = std::move(order);
    } catch (const InvalidArgument&) {
    }
  }
  // The entries a case lists fit its kind and quantity: property entries need property cases, value cases an
  // entry with its own exact value, laws and kernel cases an entry that bounds the divergence they compute.
  void check_entries(const Case& c, const toml::table& t) const {
    const toml::node* b = t.get("bounds");
    for (const std::string& id : c.bounds) {
      const BoundEntry& e = entry(id);
      const bool ok = computes_divergence(c.kind) ? e.bounded_divergence().has_value()
                      : c.kind == Case::Kind::value ? e.value() != nullptr
                                                    : e.property() != nullptr;
      if (!ok)
        fail(b, "bounds", fmt::format("{} cannot be checked by a case of kind {} (it is {})", id, to_string(c.kind), e.kind_name()));
      if (computes_divergence(c.kind) && *e.bounded_divergence() != c.quantity)
        fail(b, "bounds", fmt::format("{} bounds {} ({}), but this case computes {}", id, quantity_name(*e.bounded_divergence()),
                                      declared_at(e), quantity_name(c.quantity)));
    }
  }

  // Every point, before anything runs, and every corner of the search space (PointChecks).
  void check_points(const Case& c, const toml::table& t) const { PointChecks(*this, *declared_, c, t).run(); }

 private:
  const BoundEntry& entry(const std::string& id) const { return find_bound(id, *declared_); }
  std::shared_ptr<const DeclaredBounds> declared_;
};

// The case files a path names: the file, or a folder's *.toml files in name order. Every name is said before anything
// is read: a path the system cannot take (longer than PATH_MAX, a name over NAME_MAX: a C++ "filesystem error" with
// exit 1 was printed), and a folder's *.toml entry that is not a regular file (a pipe, or a link to /dev/zero, was
// skipped without a word, so a file meant to be checked was not).
void collect(const std::filesystem::path& path, std::vector<std::filesystem::path>& files) {
  const std::string named = escape::plain(path.native().size() > 80 ? path.native().substr(0, 60) + "..." : path.native());
  if (path.native().size() >= PATH_MAX)
    invalid_input("{}: a path of {} bytes; allowed at most {} (the system's PATH_MAX)", named, path.native().size(), PATH_MAX - 1);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) invalid_input("{}: cannot be read ({})", named, ec.message());
  if (std::filesystem::is_directory(status)) {
    std::vector<std::filesystem::path> found;
    for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".toml") continue;
      std::error_code kind;
      if (!it->is_regular_file(kind))
        invalid_input("{}: in the folder given, not a regular file (a folder, pipe, device or a link to one); every *.toml there "
                      "is read as a case file: remove it or move it out", escape::plain(it->path().native()));
      found.push_back(it->path());
    }
    if (ec) invalid_input("{}: the folder cannot be read ({})", named, ec.message());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  } else if (std::filesystem::exists(status)) {
    files.push_back(path);
  } else {
    invalid_input("{}: no such file or directory", named);
  }
}

}  // namespace

namespace {

// The identifiers of a text (formula variables, {placeholders}, function names alike): a superset of the parameters it
// reads.
void add_identifiers(const std::string& text, std::set<std::string>& out) {
  const auto starts = [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (std::size_t i = 0; i < text.size();) {
    if (!starts(text[i]) || (i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1])))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && (starts(text[j]) || std::isdigit(static_cast<unsigned char>(text[j])))) ++j;
    out.insert(text.substr(i, j - i));
    i = j;
  }
}

// The names a file's [[figure]] tables may read from a case's points (x, a series' scale and where, ...): every key and
// every identifier of every string in them, a superset.
void add_figure_reads(const toml::node& node, std::set<std::string>& out) {
  if (const auto* t = node.as_table())
    for (const auto& [k, v] : *t) {
      out.insert(std::string(k.str()));
      add_figure_reads(v, out);
    }
  else if (const auto* a = node.as_array())
    for (const auto& v : *a) add_figure_reads(v, out);
  else if (const auto* str = node.as_string())
    add_identifiers(**str, out);
}

std::vector<Case> cases_of(const toml::table& doc, const std::string& name, std::shared_ptr<const DeclaredBounds> declared) {
  Reader reader(name, std::move(declared));
  for (const auto& [k, v] : doc)
    if (std::find(kFileKeys.keys.begin(), kFileKeys.keys.end(), k.str()) == kFileKeys.keys.end())
      reader.fail(&v, std::string(k.str()),
                  "unknown top-level key (cases are [[case]] tables, bounds [[bound]] tables, figures [[figure]] tables)");
  const toml::node* cases = doc.get("case");
  if (!cases && (doc.get("bound") || doc.get("figure"))) return {};  // a file of bounds or figures only
  if (!cases || !cases->is_array_of_tables() || cases->as_array()->empty())
    reader.fail(&doc, "case", "the file must contain [[case]] tables");
  std::set<std::string> names, figure_reads;
  if (const toml::node* figures = doc.get("figure")) add_figure_reads(*figures, figure_reads);
  std::vector<Case> out;
  for (const auto& t : *cases->as_array()) {
    Case c = reader.read(*t.as_table());
    c.read_by_figures = figure_reads;
    if (!names.insert(c.name).second) reader.fail(&t, "name", fmt::format("duplicate case name '{}'", c.name));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

const BoundEntry& Case::entry(const std::string& id) const {
  static const DeclaredBounds none;
  return find_bound(id, declared ? *declared : none);
}

std::vector<Case> parse_cases(std::string_view text, const std::string& name) {
  const toml::table doc = parse_toml(text, name);
  DeclaredBounds declared;
  add_declared(declared, bound_tables(doc, name, true));
  return cases_of(doc, name, std::make_shared<const DeclaredBounds>(std::move(declared)));
}

std::vector<std::filesystem::path> case_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::filesystem::path> files;
  for (const auto& p : paths) {
    const std::size_t before = files.size();
    collect(p, files);
    if (files.size() == before) invalid_input("{}: no .toml case files here", p.string());
  }
  // A file's name reaches every output (rows name their file): held to the text policy of names, so that invalid
  // UTF-8 is refused now (it failed the JSON writer after the whole run) and no control character is carried.
  for (const auto& f : files)
    if (const std::string problem = escape::text_problem(f.string()); !problem.empty())
      invalid_input("case file {}: its name holds {}; rename it", escape::plain(f.string()), problem);
  // The same file twice (given twice, or a file and its folder) would run every case twice.
  std::set<std::filesystem::path> seen;
  for (const auto& f : files) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(f, ec);
    if (!seen.insert(ec ? f : canonical).second)
      invalid_input("{}: this file is given twice (directly or through its folder): give it once", f.string());
  }
  return files;
}

Loaded load(const std::vector<std::filesystem::path>& paths) {
  const std::vector<std::filesystem::path> files = case_files(paths);
  std::vector<toml::table> docs;
  for (const auto& f : files) {
    docs.push_back(parse_toml(read_input_file("case file", f, kMaxCaseFileBytes), f.string()));
  }
  // Bounds first, from every file, so that a case may use a bound declared in another file.
  DeclaredBounds declared;
  for (std::size_t i = 0; i < files.size(); ++i) add_declared(declared, bound_tables(docs[i], files[i].string(), true));
  Loaded out;
  out.bounds = std::make_shared<const DeclaredBounds>(std::move(declared));
  for (std::size_t i = 0; i < files.size(); ++i)
    for (Case& c : cases_of(docs[i], files[i].string(), out.bounds)) out.cases.push_back(std::move(c));
  return out;
}

std::vector<Case> load_cases(const std::vector<std::filesystem::path>& paths) { return load(paths).cases; }


std::vector<std::string> unread_grid_parameters(const Case& c) {
  std::set<std::string> read = c.read_by_figures;
  for (const std::string* text : {&c.mu, &c.nu, &c.order}) add_identifiers(*text, read);
  for (const auto& [name, formula] : c.derived) add_identifiers(formula, read);
  for (const auto& [name, values] : c.grid)  // a word value may be a formula placed into a law: loss = "… + ridge*x^2"
    for (const auto& v : values)
      if (const std::string* w = std::get_if<std::string>(&v)) add_identifiers(*w, read);
  for (const auto* list : {&c.explore_where, &c.explore_degenerate})
    for (const std::string& condition : *list) add_identifiers(condition, read);
  if (c.kind == Case::Kind::kernel)  // what kernel_at reads
    for (const char* name : {"k", "eps0", "states", "concentration", "seed", "per_row", "laziness"}) read.insert(name);
  for (const std::string& id : c.bounds) {
    const BoundEntry& e = c.entry(id);
    add_identifiers(e.formula, read);
    add_identifiers(e.declaration, read);  // a declared bound's order and requirements
    std::vector<Parameter> declared = e.parameters;
    if (const ValueCheck* v = e.value()) declared.insert(declared.end(), v->parameters.begin(), v->parameters.end());
    for (const Parameter& p : declared) {
      read.insert(p.name);
      if (!p.when_word.empty()) read.insert(p.when_word);
    }
  }
  std::vector<std::string> out;
  for (const auto& [name, values] : c.grid)
    if (values.size() > 1 && !read.count(name)) out.push_back(name);
  return out;
}

std::vector<std::string> unread_parameter_notes(const std::vector<Case>& cases, const std::vector<std::string>& only) {
  std::vector<std::string> notes;
  for (const Case& c : cases) {
    const bool runs = only.empty() || std::any_of(c.bounds.begin(), c.bounds.end(), [&](const std::string& id) {
                        return std::find(only.begin(), only.end(), id) != only.end();
                      });
    if (!runs) continue;
    for (const std::string& name : unread_grid_parameters(c)) {
      const auto values = std::find_if(c.grid.begin(), c.grid.end(), [&](const auto& g) { return g.first == name; })->second.size();
      notes.push_back(fmt::format("{}:{}: case '{}': grid parameter '{}' takes {} values and nothing reads it (no law, order, "
                                  "derived parameter, condition, bound or figure names it): every result is computed {} times",
                                  c.file, c.line, c.name, name, values, values));
    }
  }
  return notes;
}

}  // namespace privamp::verify
