"""Tests of the privamp Python module against the command line's JSON (run by CTest with the system Python)."""

import json
import math
import os
import subprocess
import threading
import unittest

import privamp

EXE = os.environ.get("PRIVAMP_EXE", "privamp")
SOURCE = os.environ.get("PRIVAMP_SOURCE_DIR", ".")


def cli_json(*args):
    out = subprocess.run([EXE, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cli_error(*args):
    p = subprocess.run([EXE, *args], capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


class Divergence(unittest.TestCase):
    def test_same_numbers_as_the_command_line(self):
        mu, nu = "mix(q=0.01, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)"
        got = privamp.divergence(mu, nu, renyi=[2, 2.5], hockey_stick=[0, 0.5, 1], kl=True, tv=True)
        want = cli_json("divergence", mu, nu, "--renyi", "2,2.5", "--hockey-stick", "0,0.5,1", "--kl", "--tv")
        self.assertEqual(got.p, want["p"])
        self.assertEqual(len(got), len(want["results"]))
        for g, w in zip(got, want["results"]):
            self.assertEqual(g.quantity, w["quantity"])
            for field in ("value", "lower", "upper", "log_value"):
                self.assertEqual(getattr(g, field), w[field], f"{g.quantity} {field}")
            self.assertEqual(g.method, w["method"])
            self.assertLessEqual(g.lower, g.value)
            self.assertLessEqual(g.value, g.upper)

    def test_closed_form_inside_the_interval(self):
        # R_alpha(N(1,1) || N(0,1)) = alpha/2 exactly.
        for r, alpha in zip(privamp.divergence("gaussian(1,1)", "gaussian(0,1)", renyi=[2, 8], engine="quadrature"),
                            [2, 8]):
            self.assertLessEqual(r.lower, alpha / 2)
            self.assertLessEqual(alpha / 2, r.upper)

    def test_infinity_and_underflow(self):
        inf = privamp.divergence("laplace(1,1)", "laplace(0,1)", renyi=float("inf"))[0]
        self.assertEqual(inf.quantity, "renyi_inf")
        self.assertAlmostEqual(inf.value, 1.0, places=12)
        tiny = privamp.divergence("gaussian(1,1)", "gaussian(0,1)", hockey_stick=60)[0]
        self.assertEqual(tiny.value, 0.0)
        self.assertTrue(math.isfinite(tiny.log_value) and tiny.log_value < -700)

    def test_arrays(self):
        cols = privamp.divergence("laplace(1,1)", "laplace(0,1)", hockey_stick=[0, 0.5, 1]).arrays()
        self.assertEqual(list(cols["quantity"]), ["hockey_stick(0)", "hockey_stick(0.5)", "hockey_stick(1)"])
        self.assertEqual(len(cols["value"]), 3)
        self.assertGreater(cols["value"][0], cols["value"][2])

    def test_bad_input_has_the_command_line_message(self):
        code, message = cli_error("divergence", "gaussian(0,-1)", "gaussian(0,1)", "--kl")
        self.assertEqual(code, 2)
        with self.assertRaises(ValueError) as caught:
            privamp.divergence("gaussian(0,-1)", "gaussian(0,1)", kl=True)
        self.assertEqual("privamp: error: " + str(caught.exception), message)
        with self.assertRaisesRegex(ValueError, "nothing to compute"):
            privamp.divergence("gaussian(0,1)", "gaussian(1,1)")
        with self.assertRaisesRegex(ValueError, "alpha"):
            privamp.divergence("gaussian(0,1)", "gaussian(1,1)", renyi=1)
        with self.assertRaisesRegex(ValueError, "unknown law"):
            privamp.divergence("gauss(0,1)", "gaussian(1,1)", tv=True)
        with self.assertRaisesRegex(ValueError, "renyi: expected a number"):
            privamp.divergence("gaussian(0,1)", "gaussian(1,1)", renyi=object())

    def test_threads_give_identical_results(self):
        # The engines release the GIL (python/module.cpp); here: calls from several threads agree.
        results = []
        def work():
            results.append(privamp.divergence("laplace_sum(1, [1, 2])", "laplace_sum(0, [1, 2])", renyi=[2, 3])[0].value)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(set(results)), 1)


class Kernel(unittest.TestCase):
    K = [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]]

    def test_same_numbers_as_the_command_line(self):
        got = privamp.kernel(self.K, eps=[0.5], dp=(1, 0.01), eps_prime=[0, 0.5, 1], renyi=[2])
        want = cli_json("kernel", "--K", json.dumps(self.K), "--eps", "0.5", "--dp", "1,0.01", "--eps-prime",
                        "0,0.5,1", "--renyi", "2")
        for key in ("dobrushin", "doeblin", "ultra_mixing", "theorem1", "renyi"):
            self.assertEqual(json.dumps(got[key], sort_keys=True), json.dumps(want[key], sort_keys=True), key)
        for g, w in zip(got["profile"], want["profile"]):
            self.assertEqual((g["value"], g["lower"], g["upper"], g["map"]), (w["value"], w["lower"], w["upper"], w["map"]))
        self.assertAlmostEqual(got["doeblin"]["value"], 0.45, places=14)
        self.assertEqual(got["profile"][2]["bounds"]["T1.1"], 0.004)
        self.assertIsNone(got["profile"][0]["bounds"]["T1.1"])  # Theorem 1 (1) says nothing at eps' < eps

    def test_bad_kernel(self):
        with self.assertRaisesRegex(ValueError, "row 0 sums to 1.01"):
            privamp.kernel([[0.5, 0.3, 0.21], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])
        with self.assertRaisesRegex(ValueError, "give dp"):
            privamp.kernel(self.K, eps_prime=[1])
        with self.assertRaisesRegex(ValueError, "dp: expected"):
            privamp.kernel(self.K, dp=[1, 0.1, 3], eps_prime=[1])


class Verify(unittest.TestCase):
    def test_rows_of_a_case_file(self):
        rows, summary = privamp.verify(os.path.join(SOURCE, "cases", "diffusions.toml"), only="E4,E5", jobs=2)
        self.assertIn("E4", summary)
        self.assertEqual({r["id"] for r in rows}, {"E4", "E5"})
        self.assertTrue(all(r["verdict"] == "tight" for r in rows))
        self.assertTrue(all(r["exact"]["lower"] <= r["bound"] * (1 + 1e-12) for r in rows))

    def test_bad_case_file(self):
        with self.assertRaisesRegex(ValueError, "key 'bounds'"):
            privamp.verify(os.path.join(SOURCE, "tests", "cli", "bad_case.toml"))
        with self.assertRaisesRegex(ValueError, "unknown theorem|unknown bound|known"):
            privamp.verify(os.path.join(SOURCE, "cases", "diffusions.toml"), only="NOPE")


def gaussian_delta(eps, mu):
    """delta(eps) of N(mu, 1) against N(0, 1) (either direction), from the closed form by erfc (an independent route)."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


class Profile(unittest.TestCase):
    def test_version(self):
        self.assertRegex(privamp.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        out = subprocess.run([EXE, "--version"], check=True, capture_output=True, text=True).stdout
        self.assertIn(privamp.__version__, out)

    def test_profile_is_the_larger_direction(self):
        # Subsampled Gaussian: the two directions differ; the profile takes the larger, interval end by end.
        mu, nu = "mix(q=0.2, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)"
        eps = [0.0, 0.1, 0.5]
        points = privamp.privacy_profile(mu, nu, eps)
        forward = privamp.divergence(mu, nu, hockey_stick=eps)
        backward = privamp.divergence(nu, mu, hockey_stick=eps)
        for p, f, b in zip(points, forward, backward):
            self.assertEqual(p.delta, max(f.value, b.value))
            self.assertEqual((p.lower, p.upper), (max(f.lower, b.lower), max(f.upper, b.upper)))
            self.assertLessEqual(p.lower, p.delta)
            self.assertLessEqual(p.delta, p.upper)
            self.assertEqual(p.direction, "mu||nu" if f.value >= b.value else "nu||mu")
        self.assertNotEqual(forward[2].value, backward[2].value)  # the directions do differ

    def test_epsilon_brackets_the_closed_form(self):
        for mu, delta in ((1.0, 1e-5), (0.5, 1e-3), (2.0, 1e-8)):
            e = privamp.epsilon(f"gaussian({mu}, 1)", "gaussian(0, 1)", delta)
            # The reference: bisection on the closed form (erfc), to 1e-13.
            a, b = 0.0, 100.0
            for _ in range(200):
                m = 0.5 * (a + b)
                a, b = (m, b) if gaussian_delta(m, mu) > delta else (a, m)
            self.assertLessEqual(e.lower, b + 1e-12, (mu, delta, e))
            self.assertLessEqual(a - 1e-12, e.upper, (mu, delta, e))
            self.assertLess(e.upper - e.lower, 1e-8 * max(1.0, e.upper))
            self.assertIn("bracketed root", e.error_kind)

    def test_epsilon_bad_input(self):
        with self.assertRaisesRegex(ValueError, "delta = 1.5 is out of range"):
            privamp.epsilon("gaussian(1, 1)", "gaussian(0, 1)", 1.5)
        with self.assertRaisesRegex(ValueError, "eps_max"):
            privamp.epsilon("gaussian(10, 1)", "gaussian(0, 1)", 1e-300, eps_max=2)
        self.assertEqual(privamp.epsilon("gaussian(0.001, 1)", "gaussian(0, 1)", 0.5).value, 0.0)


class Laws(unittest.TestCase):
    def test_catalogue(self):
        names = {law["name"] for law in privamp.laws()}
        self.assertTrue({"gaussian", "laplace_sum", "noisy_sgd", "chain"} <= names)

    def test_docstrings(self):
        for f in (privamp.divergence, privamp.kernel, privamp.verify, privamp.laws, privamp.Divergences.arrays):
            self.assertTrue(f.__doc__ and len(f.__doc__) > 40, f.__name__)


if __name__ == "__main__":
    unittest.main()
