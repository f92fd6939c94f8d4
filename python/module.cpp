// _privamp: the compiled half of the `privamp` Python package (python/privamp/__init__.py is the other). Every
// function takes plain values and returns the same JSON text the command line prints, so both front ends give the
// same numbers; the GIL is released while the engines run. Errors: InvalidArgument → ValueError, NumericalError →
// RuntimeError, with the command line's message.
#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "numerics/errors.hpp"
#include "verify/api/api.hpp"

namespace py = pybind11;
using namespace privamp;

PYBIND11_MODULE(_privamp, m) {
  m.doc() = "privamp's engines (use the privamp package, not this module)";
  m.attr("__version__") = PRIVAMP_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const NumericalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  m.def(
      "divergence_json",
      [](const std::string& mu, const std::string& nu, const std::vector<double>& renyi,
         const std::vector<double>& hockey_stick, bool kl, bool tv, const std::string& engine, double rel_tol,
         long samples, std::uint64_t seed, double level) {
        api::DivergenceRequest r;
        r.renyi = renyi;
        r.hockey_stick = hockey_stick;
        r.kl = kl;
        r.tv = tv;
        r.engine = engine;
        r.rel_tol = rel_tol;
        r.samples = samples;
        r.seed = seed;
        r.level = level;
        return api::to_json(api::divergence(mu, nu, r)).dump();
      },
      py::call_guard<py::gil_scoped_release>(), "divergences between two law expressions, as JSON text");
  m.def(
      "kernel_json",
      [](const std::string& matrix, const std::vector<double>& eps, const std::vector<double>& dp,
         const std::vector<double>& eps_prime, const std::vector<double>& renyi) {
        api::KernelRequest r;
        r.eps = eps;
        if (!dp.empty()) {
          if (dp.size() != 2) throw InvalidArgument("dp: expected (eps, delta), two numbers");
          r.dp = std::make_pair(dp[0], dp[1]);
        }
        r.eps_prime = eps_prime;
        r.renyi = renyi;
        return api::to_json(api::kernel(api::parse_kernel(matrix), r)).dump();
      },
      py::call_guard<py::gil_scoped_release>(), "coefficients and exact amplification of a finite kernel, as JSON text");
  m.def(
      "verify_json",
      [](const std::vector<std::string>& paths, const std::vector<std::string>& only, int jobs) {
        api::VerifyResult r;
        {
          py::gil_scoped_release release;
          r = api::verify(paths, only, jobs);
        }
        return py::make_tuple(r.rows_json, r.summary, r.violated, r.errors);
      },
      "the rows of privamp verify as JSON text, the summary table, violations and errors");
  m.def("laws_json", []() { return api::laws().dump(); }, "the law catalogue as JSON text");
}
