// The text markup of figures: titles, labels, legends and descriptions are written in gnuplot's enhanced text
// ({/Symbol a} a Greek letter, R_{x} and e^2 scripts, {} grouping) with <=, >= and -> as relations. gnuplot draws it
// itself; one renderer per other language, from one table of symbols: LaTeX for the pgfplots file and the caption
// (every other character escaped: a figure file cannot put a command into a paper), Unicode text for terminals,
// provenance files and comments.
#pragma once

#include <string>

namespace privamp::plots {

// What is wrong with a text's markup, or "" when nothing is: a '{' never closed or a '}' never opened (counted
// outside backslash escapes), a _ or ^ with nothing to raise or lower, a gnuplot font change ({/Font ...}, {/=40 ...};
// only {/Symbol x} is markup) or a backslash before a digit (an octal code; only {/Symbol \245}). Checked when a
// figure file is read.
std::string markup_problem(const std::string& text);
// As LaTeX: $\alpha $, R$_{x}$, e$^{2}$, $\le $; other characters escaped (escape::latex).
std::string enhanced_to_latex(const std::string& text);
// As Unicode text: α, R_x, e^2, ≤ (valid UTF-8, no control or bidirectional characters).
std::string enhanced_to_plain(const std::string& text);
// A parameter's name as an axis label: a Greek letter's name (alpha, sigma, Delta, eps …), with digits after it as a
// subscript, becomes the letter ({/Symbol s}_{2} for sigma2), a name ending in _prime the same with a prime (ε' for
// eps_prime); any other name is itself, as a literal (gnuplot's markup characters escaped).
std::string parameter_label(const std::string& name);

}  // namespace privamp::plots
