#include "stats/distributions.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace assay::stats {
namespace {

// Continued fraction of the regularized incomplete beta function, evaluated with the
// modified Lentz method (Numerical Recipes, 3rd ed., section 6.4). Converges quickly for
// x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
// to stay in that region.
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

}  // namespace

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  // Acklam's rational approximation (relative error < 1.2e-9), then two Newton steps on
  // normal_cdf, which bring it to double precision.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - p_low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  for (int i = 0; i < 2; ++i) {
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846);
    x -= (normal_cdf(x) - p) / density;
  }
  return x;
}

double student_t_two_sided_p(double t, double df) {
  if (!(df > 0.0)) throw std::invalid_argument("student_t_two_sided_p: df must be > 0");
  if (std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return 0.0;
  // P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  return regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double student_t_two_sided_quantile(double confidence, double df) {
  if (!(confidence > 0.0 && confidence < 1.0)) throw std::invalid_argument("student t quantile: confidence in (0, 1)");
  if (!(df > 0.0)) throw std::invalid_argument("student t quantile: df must be > 0");
  // The two-sided tail falls as t grows: bisection to double precision.
  const double tail = 1.0 - confidence;
  double lo = 0.0, hi = 1.0;
  while (student_t_two_sided_p(hi, df) > tail) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = (lo + hi) / 2.0;
    (student_t_two_sided_p(mid, df) > tail ? lo : hi) = mid;
  }
  return (lo + hi) / 2.0;
}

}  // namespace assay::stats
