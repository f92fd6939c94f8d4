// Case-file texts for tests, in the shape most tests start from: one laws case of Gaussians (E1's pair) over a
// grid, with the keys a test changes given by name:
//   case_text({.name = "space", .grid = "alpha = 2\ndelta = [1, 2]\n", .more = "[case.explore]\n..."})
#pragma once

#include <string>

namespace privamp::test {

struct CaseText {
  std::string name = "gauss";
  std::string bounds = "\"E1\"";
  std::string mu = "gaussian({delta}, 1)";
  std::string nu = "gaussian(0, 1)";
  std::string quantity = "renyi";
  std::string order = "{alpha}";
  std::string grid = "alpha = [2, 4]\ndelta = 1\nsigma1 = 1\nsigma2 = 1\n";  // the lines of [case.grid]
  std::string more = "";  // what follows the grid ([case.explore], further tables)
};

inline std::string case_text(const CaseText& c) {
  return "[[case]]\nname = \"" + c.name + "\"\nbounds = [" + c.bounds + "]\nmu = \"" + c.mu + "\"\nnu = \"" + c.nu +
         "\"\nquantity = \"" + c.quantity + "\"\norder = \"" + c.order + "\"\n[case.grid]\n" + c.grid + c.more;
}

}  // namespace privamp::test
