// The HTML report of privamp verify (--html DIR): one self-contained file, DIR/index.html. Everything is inline —
// the style sheet and the plots (SVG) — and nothing runs: no script, no font, image or link to load, so the page
// reads the same offline, from an archive or a CI artifact. Every text that comes from a case file is escaped.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "verify/report/report.hpp"

namespace privamp::verify {

namespace {


std::string html_number(double x) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", x);
}

const char* colour(Verdict v) {
  switch (v) {
    case Verdict::tight: return "#1b7837";
    case Verdict::holds: return "#2166ac";
    case Verdict::inconclusive: return "#e08214";
    case Verdict::violated: return "#b2182b";
    default: return "#777777";
  }
}

// A power of ten as SVG text: 1, 10 and 0.1 as numbers, others as 10 with a raised exponent.
std::string decade_label(int k) {
  if (k >= -1 && k <= 1) return fmt::format("{:g}", std::pow(10.0, k));
  return fmt::format("10<tspan dy=\"-5\" font-size=\"8\">{}</tspan>", k);
}

// bound/exact (exact/bound for a lower bound: Row::looseness) of one theorem's rows on a log scale against the first parameter that varies among them (row order
// when none does), each point coloured by its verdict with a tooltip (an SVG <title>: parameters, quantity, ratio,
// verdict), and the line ratio = 1 (tight). Rows without a ratio are counted under the plot, not drawn.
std::string ratio_plot(const std::vector<const Row*>& rows) {
  struct Point {
    double x, y;
    const Row* row;
  };
  std::vector<const Row*> with_ratio;
  for (const Row* r : rows)
    if (const double q = r->looseness(); !r->is_property() && std::isfinite(q) && q > 0) with_ratio.push_back(r);
  if (with_ratio.empty()) return "<p class=\"note\">No row of this theorem has a ratio to plot.</p>\n";
  // The x axis: the first numeric parameter (in name order) with more than one value among the plotted rows.
  std::string axis;
  for (const auto& [name, value] : with_ratio.front()->params.numbers) {
    const bool everywhere = std::all_of(with_ratio.begin(), with_ratio.end(), [&](const Row* r) {
      const auto it = r->params.numbers.find(name);
      return it != r->params.numbers.end() && std::isfinite(it->second);
    });
    // (asked only where every row has the parameter: one ID on cases of different parameters made `at` throw)
    if (everywhere && std::any_of(with_ratio.begin(), with_ratio.end(), [&](const Row* r) { return r->params.numbers.at(name) != value; })) {
      axis = name;
      break;
    }
  }
  std::vector<Point> points;
  for (std::size_t i = 0; i < with_ratio.size(); ++i)
    points.push_back({axis.empty() ? static_cast<double>(i) : with_ratio[i]->params.numbers.at(axis), std::log10(with_ratio[i]->looseness()), with_ratio[i]});
  double xlo = HUGE_VAL, xhi = -HUGE_VAL, lo = 0, hi = 0;  // the y range always shows ratio 1
  for (const Point& p : points) {
    xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
    lo = std::min(lo, p.y), hi = std::max(hi, p.y);
  }
  const bool logx = !axis.empty() && xlo > 0 && xhi / xlo > 100;  // a parameter spanning decades on a log axis
  const auto fx = [&](double x) { return logx ? std::log10(x) : x; };
  const double pad = std::max(0.05, 0.05 * (hi - lo));
  lo -= pad;
  hi += pad;
  constexpr double width = 720, height = 230, left = 70, right = 14, top = 10, bottom = 40;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  auto px = [&](double x) { return left + plot_w * (fx(xhi) == fx(xlo) ? 0.5 : 0.03 + 0.94 * (fx(x) - fx(xlo)) / (fx(xhi) - fx(xlo))); };
  auto py = [&](double y) { return top + plot_h * (hi - y) / (hi - lo); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"bound/exact per row\">\n<rect x=\"{2}\" y=\"{3}\" width=\"{4}\" height=\"{5}\" fill=\"#fafafa\" stroke=\"#999\"/>\n",
      width, height, left, top, plot_w, plot_h);
  // Ticks at whole decades (at most ~8 labels), and the tight line.
  const int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
  const int step = std::max(1, (last - first) / 8 + 1);
  for (int k = first; k <= last; k += step)
    svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" "
                       "text-anchor=\"end\" font-size=\"11\">{5}</text>\n",
                       left, left + plot_w, py(k), left - 6, py(k) + 4, decade_label(k));
  if (last - first < 1)  // less than two decades in view: label the data's own ends too
    for (double y : {lo + pad, hi - pad})
      if (std::abs(y) > 1e-12)
        svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{:.4g}</text>\n", left - 6, py(y) + 4,
                           std::pow(10.0, y));
  // x ticks: the smallest and largest value and, on a log axis, the decades between.
  if (!axis.empty()) {
    std::vector<double> ticks = {xlo, xhi};
    if (logx)
      for (int k = static_cast<int>(std::ceil(std::log10(xlo))); k <= static_cast<int>(std::floor(std::log10(xhi))); ++k) ticks.push_back(std::pow(10.0, k));
    for (double t : ticks)
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{:.4g}</text>\n", px(t), top + plot_h + 13, t);
  }
  svg += fmt::format("<text x=\"14\" y=\"{0:.1f}\" font-size=\"11\" transform=\"rotate(-90 14 {0:.1f})\" "
                     "text-anchor=\"middle\">bound/exact</text>\n", top + plot_h / 2);
  svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#1b7837\" stroke-dasharray=\"4 3\"/>\n", left,
                     left + plot_w, py(0));
  for (const Point& p : points)
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{} ({}): {}, {} {:.6g}, {}</title></circle>\n",
                       px(p.x), py(p.y), colour(p.row->verdict), escape::html(p.row->params.describe()), escape::html(p.row->case_name),
                       escape::html(p.row->quantity()), p.row->direction == Direction::lower ? "exact/bound" : "bound/exact",
                       std::pow(10.0, p.y), escape::html(to_string(p.row->verdict)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{} ({} rows with a ratio; dashed: "
                     "bound = exact; hover a point for its row)</text>\n</svg>\n",
                     left + plot_w / 2, height - 8,
                     axis.empty() ? std::string("rows in case order") : escape::html(axis) + (logx ? " (log scale)" : ""), points.size());
  return svg;
}

void row_table(std::string& out, const std::vector<const Row*>& rows) {
  out += "<table>\n<tr><th>ID</th><th>case</th><th>parameters</th><th>quantity</th><th>exact [interval]</th><th>kind</th>"
         "<th>bound</th><th>verdict</th><th>detail</th></tr>\n";
  for (const Row* r : rows)
    // (the value and interval as every table prints them: "< upper" where only the upper end is known, exp(x) below the
    // double range; "0 [0, 4.9e-324]" had stood for a value of e^-1233.9)
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td>"
                       "<td style=\"color:{}\">{}</td><td>{}</td></tr>\n",
                       escape::html(r->id), escape::html(r->case_name), escape::html(r->params.describe()), escape::html(r->quantity()),
                       std::isnan(r->exact.value) ? html_number(r->exact.value) : escape::html(value_text(r->exact)),
                       std::isnan(r->exact.value) ? "" : escape::html(interval_text(r->exact, 10)), escape::html(error_kind_label(r->exact)),
                       html_number(r->bound),
                       colour(r->verdict), escape::html(to_string(r->verdict)), escape::html(r->reason + " " + r->note));
  out += "</table>\n";
}

}  // namespace

void write_html(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& dir) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>privamp verify report</title>\n"
      "<style>\nbody{font-family:sans-serif;margin:2em;max-width:75em;color:#222}\n"
      "table{border-collapse:collapse;margin:1em 0;font-size:90%}\ntd,th{border:1px solid #ccc;padding:3px 6px;text-align:left;"
      "vertical-align:top}\nth{background:#eee}\npre{background:#f6f6f6;padding:1em;overflow-x:auto}\n"
      ".note{color:#555}\nsection{border-top:1px solid #ccc;margin-top:2em}\n</style>\n</head>\n<body>\n";
  out += "<h1>privamp verify report</h1>\n";
  out += fmt::format("<p>privamp {} (commit {}), {}, {:.1f} s: <code>{}</code></p>\n", escape::html(meta.version), escape::html(meta.commit),
                     escape::html(meta.date), meta.seconds, escape::html(meta.command));
  out += fmt::format("<p>Kinds of interval behind the exact values (rows): {}.</p>\n", escape::html(interval_kinds(rows)));
  out += "<h2 id=\"summary\">Summary per theorem</h2>\n<pre>" + escape::html(summary_table(rows)) + "</pre>\n";
  out += "<p class=\"note\">bound/exact: for upper bounds at least 1 when the bound holds (1 = tight); for lower bounds, "
         "exact/bound. Colours: <span style=\"color:#1b7837\">tight</span>, <span style=\"color:#2166ac\">holds</span>, "
         "<span style=\"color:#e08214\">inconclusive</span>, <span style=\"color:#b2182b\">violated</span>.</p>\n";
  out += "<h2 id=\"theorems\">Theorems</h2>\n";
  for (const TheoremSummary& st : theorem_summaries(rows)) {
    std::vector<const Row*> mine;
    for (const Row& r : rows)
      if (r.id == st.id) mine.push_back(&r);
    const auto t = meta.theorems.find(st.id);
    out += fmt::format("<section id=\"theorem-{0}\">\n<h3>{0}</h3>\n", escape::html(st.id));
    if (t != meta.theorems.end())
      out += fmt::format("<p>{}</p>\n<p class=\"note\">Source: {}</p>\n", escape::html(t->second.statement), escape::html(t->second.source));
    out += fmt::format("<p>{} rows: {} tight, {} holds, {} inconclusive, {} violated, {} not applicable, {} errors.</p>\n", st.points,
                       st.count(Verdict::tight), st.count(Verdict::holds), st.count(Verdict::inconclusive),
                       st.count(Verdict::violated), st.count(Verdict::not_applicable), st.count(Verdict::error));
    out += fmt::format("<p>Loosest: {}<br>Tightest: {}</p>\n", escape::html(ratio_at(st.loosest)), escape::html(ratio_at(st.tightest)));
    out += ratio_plot(mine) + "</section>\n";
  }
  for (const auto& [title, verdict] : {std::pair{"Violations", Verdict::violated}, std::pair{"Errors", Verdict::error}}) {
    std::vector<const Row*> sel;
    for (const Row& r : rows)
      if (r.verdict == verdict) sel.push_back(&r);
    out += fmt::format("<h2>{} ({})</h2>\n", title, sel.size());
    if (sel.empty()) out += "<p>None.</p>\n";
    else row_table(out, sel);
  }
  out += "<p class=\"note\">Every row, with its law expressions, engine and method: results.csv and results.json "
         "(privamp verify --out DIR).</p>\n</body>\n</html>\n";
  std::filesystem::create_directories(dir);
  write_file(dir / "index.html", out);
}

}  // namespace privamp::verify
