// Parameter checks that name what is wrong. Every public entry point validates its inputs with these so that
// no NaN leaves a function silently: a bad value raises InvalidArgument naming the parameter, its value and the
// allowed range (in the spirit of Stan Math's check_positive_finite).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace privamp {

// Bad input from a user or a caller: a law parameter out of range, a malformed expression, an unsupported pair.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A numerical method could not reach a trustworthy answer (never used for bad input).
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The one way bad input is reported: raises InvalidArgument with the message formatted here and made plain
// (escape::plain, line breaks kept): a control character, a bidirectional override or an invalid byte quoted from
// the input (a bound's ID, a file name, a law's text) is shown as [U+001B] or [0xFF], never sent raw to a terminal,
// a log or a report.
[[noreturn]] void raise_invalid(std::string_view message);
template <class... Args>
[[noreturn]] void invalid_input(fmt::format_string<Args...> format, Args&&... args) {
  raise_invalid(fmt::format(format, std::forward<Args>(args)...));
}

// "where: parameter 'name' = value is out of range (allowed: ...)".
[[noreturn]] void throw_invalid(std::string_view where, std::string_view parameter, double value,
                                std::string_view allowed);

void check_finite(std::string_view where, std::string_view parameter, double value);
void check_positive_finite(std::string_view where, std::string_view parameter, double value);
// A scale of a law: 1e-300 <= value < inf (smaller scales leave ratios such as Δ/σ and σ²'s to overflow).
void check_scale(std::string_view where, std::string_view parameter, double value);
void check_nonnegative_finite(std::string_view where, std::string_view parameter, double value);
// A local privacy parameter of randomized response: 0 <= value <= kMaxLocalEpsilon, where the flip probability
// 1/(e^{ε0} + k − 1) is still a normal double (beyond, it rounded to 0 and the laws became point masses whose
// divergences were printed as exact).
inline constexpr double kMaxLocalEpsilon = 700;
void check_local_epsilon(std::string_view where, std::string_view parameter, double value);
void check_probability(std::string_view where, std::string_view parameter, double value);  // [0, 1]
void check_greater(std::string_view where, std::string_view parameter, double value, double bound);

// The numbers a command-line option or list may hold (amounts: orders, levels, rates): finite doubles, 0 or of
// magnitude at least DBL_MIN. A subnormal (1e-310, 5e-324) is read by from_chars without an error but carries too
// few digits (a sample rate of 5e-324 failed as a computation); past the range, from_chars says
// result_out_of_range. `ec` and `x` are from_chars' result over the whole text. (Law expressions read subnormal
// parameters: the engines keep their digits in logs.)
inline constexpr std::string_view kDoubleRange = "|x| <= 1.8e308, and 0 or |x| >= 2.2e-308";
bool outside_double_range(std::errc ec, double x);

// Formats a double the way every message and table in privamp does (shortest round-trip form).
std::string format_number(double x);
// A number as every output writes it: a zero is +0 (a −0 from a rounding, as an interval's end max(0, −0), is no
// information; readers print it "-0").
inline double plain_zero(double x) { return x == 0 ? 0.0 : x; }

// Text quoted in a message, kept readable: `text` itself up to `max_chars` bytes; beyond, its beginning (cut at a
// UTF-8 character boundary) and "… (N characters in all)". A law of 2,000 mixture components prints 80 kB; a
// message names it, it does not reprint it.
std::string abbreviate(std::string_view text, std::size_t max_chars = 200);

// "did you mean 'gaussian'? " for a misspelt name: the candidates nearest to `word` (case-insensitive edit distance,
// transpositions counting one, at most max(1, |word|/3)); names the word begins (three letters at least) come
// first; "" if none, or more than three equally near.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace privamp
