// What an entry of the catalogue reads from a case's point: each parameter's kind (number, integer, word) and
// range, declared beside the entry and checked by the loader at every grid point and every corner of the search
// space, so that a missing or out-of-range parameter is refused before anything runs (exit 2, file, line, key).
//
//   .parameters = {number("alpha").above(1), integer("n", 1, 1e6), word("scheme", {"poisson", "wor", "wr"}),
//                  positive("sigma").when("base", {"gaussian"})}
//
// Ranges are the domain where the entry's computation is defined; a theorem's hypotheses stay in its
// not_applicable test (a point outside them is a row, not a load error).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "numerics/range.hpp"
#include "verify/input/formula.hpp"

namespace privamp::verify {

struct Parameter {
  enum class Kind { number, integer, word };
  std::string name;
  Kind kind = Kind::number;
  Range range = {};                 // a number's allowed values (number("alpha").above(1): alpha > 1)
  std::vector<std::string> words;   // a word's allowed values (empty: any word)
  bool optional = false;            // read only when present
  // Read only when the word parameter `when_word` takes one of `when_values` ("" stands for "absent").
  std::string when_word;
  std::vector<std::string> when_values;

  Parameter above(double lower) const;  // the lower end: lower, excluded
  Parameter when(std::string word, std::vector<std::string> values) const;
  Parameter when_present(std::string word) const;  // read only when the word parameter `word` is given (any value)
  Parameter if_present() const;
  std::string describe() const;  // "an integer in [1, 100000]", "a number > 0", "one of poisson, wor, wr"
};

Parameter number(std::string name, double min = -std::numeric_limits<double>::infinity(),
                 double max = std::numeric_limits<double>::infinity());
Parameter positive(std::string name);  // a number > 0
Parameter integer(std::string name, double min, double max);
Parameter word(std::string name, std::vector<std::string> allowed = {});

// The first parameter of `spec` that the point lacks or holds out of range, with a message naming it, its value and
// the allowed range; nullopt when the point is good.
struct ParameterProblem {
  std::string name, message;
};
std::optional<ParameterProblem> check_parameters(const std::vector<Parameter>& spec, const Params& point);

// Appends `more` to `spec`, skipping names already declared.
void add_parameters(std::vector<Parameter>& spec, const std::vector<Parameter>& more);

}  // namespace privamp::verify
