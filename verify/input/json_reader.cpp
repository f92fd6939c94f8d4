#include "verify/input/json_reader.hpp"

#include <cmath>
#include <string>
#include <limits>
#include <set>
#include <vector>

#include "numerics/errors.hpp"
#include "numerics/files.hpp"

#include <fmt/format.h>

namespace privamp::verify {

namespace {

// The first problem of `text` in `problem` (empty if none). Not a parser callback: nlohmann's callback parser rescans
// the enclosing array at the end of every object, so a golden file of 300,000 rows took minutes.
class Checks : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Checks(bool subnormals) : subnormals_(subnormals) {}
  std::string problem;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t x, const string_t& literal) override {
    if (std::isinf(x)) return refuse(literal);  // (1e999: nlohmann reads it as inf)
    if (std::fabs(x) >= std::numeric_limits<double>::min()) return true;
    const std::string mantissa = literal.substr(0, literal.find_first_of("eE"));
    const bool zero = mantissa.find_first_of("123456789") == std::string::npos;
    if (x == 0 ? zero : subnormals_) return true;
    return refuse(literal);
  }
  bool refuse(const string_t& literal) {
    problem = fmt::format("number {} is out of the range of doubles (allowed: {})", literal.size() > 40 ? literal.substr(0, 37) + "..." : literal,
                          subnormals_ ? "|x| <= 1.8e308, and 0 or |x| >= 4.9e-324" : kDoubleRange);
    return false;  // stop: the text is refused
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!keys_.empty() && !keys_.back().insert(k).second) {
      // (quoted as JSON, at most 40 bytes of it, invalid UTF-8 replaced)
      const std::string shown = nlohmann::json(k.substr(0, 40)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      problem = fmt::format("the key {}{} appears twice in one table", shown, k.size() > 40 ? "..." : "");
      return false;
    }
    return true;
  }
  bool end_object() override {
    if (!keys_.empty()) keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool subnormals_;
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

nlohmann::json parse_json_input(std::string_view what, const std::string& text, bool subnormals) {
  check_json_nesting(what, text);
  Checks checks(subnormals);
  nlohmann::json::sax_parse(text, &checks);
  if (!checks.problem.empty()) invalid_input("{}: {}", what, checks.problem);
  return nlohmann::json::parse(text);
}

}  // namespace privamp::verify
