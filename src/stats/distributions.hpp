// The few probability distributions the comparison and change-point tests need: the standard
// normal (CDF and quantile) and Student's t (two-sided tail). Pure functions, no state.
#pragma once

namespace assay::stats {

// P(Z <= z) for Z ~ N(0, 1).
double normal_cdf(double z);

// The z with normal_cdf(z) = p, for p in (0, 1) (std::invalid_argument otherwise).
double normal_quantile(double p);

// P(|T| >= |t|) for T ~ Student's t with `df` > 0 degrees of freedom.
double student_t_two_sided_p(double t, double df);

// The t > 0 with P(|T| <= t) = confidence: the half-width factor of a two-sided interval.
// confidence in (0, 1), df > 0 (std::invalid_argument otherwise).
double student_t_two_sided_quantile(double confidence, double df);

}  // namespace assay::stats
