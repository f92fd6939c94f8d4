// The Poisson-subsampled Gaussian composed T times, hockey-stick divergences computed in mpmath (40 digits) by the
// contour integral δ = (1/2πi)∫ M(z)^T e^{−zε}/(z(z+1)) dz, with M(z) = ∫ A^{1+z} B^{−z} by mpmath.quad, on two
// different vertical lines (the saddle point c* and 0.7 c*; on 0.7 c* the x-integral of M runs on a line parallel to the
// real axis, where the oscillation becomes damping); the two agreed to 36 digits or better at every point. The same
// script reproduced the Gaussian closed form (q = 1) to 40 digits, and a crude Monte Carlo agreed within its error.
// The zero (N against the mixture, T = 10, ε = 0.3) is exact: that loss never exceeds T·log(1/(1−q)) = 0.1005.
// add = true: A = (1−q)N(0, σ²) + qN(1, σ²) against B = N(0, σ²); false: B against A.
#pragma once

#include <array>

namespace privamp::test {

struct ComposedReference {
  double q, sigma;
  long t;
  double eps;
  bool add;
  double delta;
};

inline constexpr std::array<ComposedReference, 16> kComposedSubsampledGaussian{{
    {0.01, 1.0, 300, 0.5, true, 0.002589220254249841480576465},  // mixture||N(0,s^2), contours at c = 6.95185 and 4.86629
    {0.01, 1.0, 300, 1.5, true, 0.0000001858418370388070977501100},  // mixture||N(0,s^2), contours at c = 7.50694 and 5.25486
    {0.01, 1.0, 1000, 1.0, true, 0.002612420578626923815571174},  // mixture||N(0,s^2), contours at c = 5.44932 and 3.81452
    {0.01, 1.0, 1000, 2.0, true, 0.000002665571924761790252417295},  // mixture||N(0,s^2), contours at c = 6.80355 and 4.76248
    {0.01, 1.0, 2000, 1.5, true, 0.002674689229050660540558595},  // mixture||N(0,s^2), contours at c = 4.21933 and 2.95353
    {0.004, 0.9, 1000, 1.0, true, 0.000002719389169926741404375354},  // mixture||N(0,s^2), contours at c = 7.2385 and 5.06695
    {0.05, 2.0, 500, 0.25, true, 0.1464570500017079823479103},  // mixture||N(0,s^2), contours at c = 2.23275 and 1.56293
    {0.01, 1.0, 10, 0.3, true, 0.00002863981967562708633057482},  // mixture||N(0,s^2), contours at c = 8.21113 and 5.74779
    {0.01, 1.0, 300, 0.5, false, 0.0004562155070654194890911199},  // N(0,s^2)||mixture, contours at c = 18.3126 and 12.8188
    {0.01, 1.0, 300, 1.5, false, 1.024086266821955731277204e-25},  // N(0,s^2)||mixture, contours at c = 104.832 and 73.3822
    {0.01, 1.0, 1000, 1.0, false, 0.0007945901735717182519953604},  // N(0,s^2)||mixture, contours at c = 8.94613 and 6.26229
    {0.01, 1.0, 1000, 2.0, false, 1.067162021368677333307670e-9},  // N(0,s^2)||mixture, contours at c = 19.4037 and 13.5826
    {0.01, 1.0, 2000, 1.5, false, 0.001011232042202278721244632},  // N(0,s^2)||mixture, contours at c = 6.08418 and 4.25892
    {0.004, 0.9, 1000, 1.0, false, 6.675988878616992333215763e-12},  // N(0,s^2)||mixture, contours at c = 50.2489 and 35.1743
    {0.05, 2.0, 500, 0.25, false, 0.1441131830789187845565034},  // N(0,s^2)||mixture, contours at c = 2.41728 and 1.6921
    {0.01, 1.0, 10, 0.3, false, 0},  // N(0,s^2)||mixture: exactly 0 (no saddle)
}};

// The subsampled Gaussian at small noise (σ = 0.3, q = 0.00125), whose privacy loss flattens within 1e-12 to
// −log(1 − q) on the far left tail (2.3e-6 of the mass): δ by the contour integral in mpmath at 50 digits on two
// different bent lines z = c + κ|y| + iy (c the saddle point, κ = ±0.5, and 0.7c, κ = ±0.3; where −1 < c < 0,
// δ = 1 + the integral, so 1 − δ comes without cancellation), M(z) not by quadrature in x but by an exact
// Mellin–Barnes integral of E[(1 + e^t)^w] for normal t (checked against direct quadrature to 3e-50); the two lines
// agreed to 31–45 digits; the same script reproduced the q = 0.01, σ = 1 references above to every digit. The T = 10^6
// values are 1 − 1.51e-60 (add) and 1 − 1.89e-60 (remove): 1 in a double. N against the mixture at T = 3000, ε = 10
// is exactly 0: that loss never exceeds 3000·log(1/(1 − q)) = 3.75.
inline constexpr std::array<ComposedReference, 9> kComposedSmallNoise{{
    {0.00125, 0.3, 3000, 2, true, 0.3932186447117613682481865},
    {0.00125, 0.3, 3000, 10, true, 0.03446349170900774209003627},
    {0.00125, 0.3, 3000, 2, false, 0.02618279980319435333390834},
    {0.00125, 0.3, 3000, 10, false, 0},
    {0.00125, 0.3, 10000, 5, true, 0.6367968017570978233988093},
    {0.00125, 0.3, 10000, 5, false, 0.1077288737214320792933208},
    {0.00125, 0.3, 10000, 20, true, 0.05287247185094272914971697},
    {0.00125, 0.3, 1000000, 1, true, 1},
    {0.00125, 0.3, 1000000, 1, false, 1},
}};

// ε at which δ(ε) = 1e-5 for q = 0.01, σ = 1, T = 1000, A against B (the same script, root-finding on δ).
inline constexpr double kEpsilonAtDelta1e5 = 1.828236666516576842614438;

// Laplace releases composed T times: H_eps(Lap(0, b)^T || Lap(Delta, b)^T) (the same value in the other direction, by
// the reflection x -> Delta - x), eps = 0 the TV. Computed in mpmath by conditioning on how many releases fall in
// each atom of the loss law (+-Delta/b) and summing the tilted Irwin-Hall laws of the rest (at 300 and 420 digits,
// agreeing to 244), and by an exact convolution of the loss law in Bernstein form (no cancellation): the two agree
// to 59 digits or more everywhere; for T <= 3 a third route, the x-space integral of (prod p - e^eps prod q)_+ split
// at every kink, agreed to 45 digits. 25 digits kept.
struct ComposedLaplaceReference {
  double b, delta;
  long t;
  double eps;
  double value;
};

inline constexpr std::array<ComposedLaplaceReference, 19> kComposedLaplace{{
    {0.6156, 0.3772, 30, 0, 0.8754536871814398450890581},
    {0.6156, 0.3772, 30, 0.5, 0.8414531863500855467591051},
    {0.6156, 0.3772, 30, 1, 0.8016042747732961964777923},
    {0.6156, 0.3772, 30, 2, 0.7048182755198367343594649},
    {0.6156, 0.3772, 30, 5, 0.3394205606401945535481799},
    {1, 1, 5, 0, 0.6786340239421774708646089},
    {1, 1, 5, 1, 0.4914353809624163687420800},
    {1, 1, 5, 2, 0.3139038109498476028308049},
    {1, 1, 5, 4, 0.05298687847928183062642433},
    {1, 1, 10, 0, 0.8337999790409800220911547},
    {1, 1, 10, 1, 0.7370348532867039457113348},
    {1, 1, 10, 3, 0.4736853114382117517195531},
    {1, 1, 10, 6, 0.1096453745931342508974411},
    {2, 1, 100, 0, 0.9796278637404818788571280},
    {2, 1, 100, 2, 0.9484810160134403196947136},
    {2, 1, 100, 5, 0.8415183545092801605303645},
    {2, 1, 100, 10, 0.4742225513450336773325288},
    {1, 1, 200, 60, 0.8621751178949359532446593},
    {1, 1, 200, 75, 0.4202716353371548319221089},
}};

}  // namespace privamp::test
