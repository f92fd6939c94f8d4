// Law expressions: how users name laws in the expression language (language.hpp), e.g.
//   mix(q=0.01, gaussian(0, 1), gaussian(1, 1))
//   laplace_sum(loc=1, scales=[1, 2])
//   clamp(gaussian(0.3, 1), lo=0, hi=1)
// A law is a call NAME '(' [arg {',' arg}] ')' with arg := [NAME '='] expr, where an argument is a number (any
// expression of the language), a law, a word or a list. A positional argument fills the first parameter (in the
// listed order) not given by name so far. Every law is one entry of law_catalogue(), which is also what
// `privamp laws` prints: its spec (sim/laws/spec.hpp) is defined and registered in its own unit, beside its class
// or process.
#pragma once

#include <cstdint>
#include <cstddef>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/range.hpp"
#include "sim/language/language.hpp"
#include "sim/laws/law.hpp"
#include "sim/laws/spec.hpp"

namespace privamp::sim {

// Parses and builds a law; InvalidArgument with the column and the reason on any error. A law whose expression
// contains discretised laws (noisy_sgd, projected_chain, double_well …) comes wrapped in a DiscretisedLaw that can
// rebuild the whole expression at finer resolutions.
LawPtr parse_law(std::string_view text);

// Checks a law expression's syntax, law and parameter names and required parameters without building anything
// (cheap even for laws that take seconds to compute), with every number's declared range (ParamSpec::range) and
// integrality; InvalidArgument as parse_law. Conditions between parameters are checked when the law is built.
void check_law_syntax(std::string_view text);

// The work of one evaluation (nodes evaluated; a divergence call counts kDivergenceWork): more is refused with a
// message naming the limit (the parser's limits on depth and length are in sim/syntax/syntax.hpp). A certified
// constant (lipschitz() and the loss constants) counts kCertifyWork.
inline constexpr std::uint64_t kMaxFormulaWork = 20'000'000;
inline constexpr std::uint64_t kDivergenceWork = 10'000;
inline constexpr std::uint64_t kCertifyWork = 1'000'000;  // a certified constant (lipschitz(), …): at most 20 per evaluation
inline constexpr double kMaxSumTerms = 1e6;  // terms of one sum() (10^6, as the messages say)
// The time one evaluation's divergence calls may take together (checked before each call).
inline constexpr double kMaxFormulaSeconds = 60;
// The refusal of an evaluation of about `work` steps: the limit and what counts.
std::string work_limit_message(double work);

}  // namespace privamp::sim
