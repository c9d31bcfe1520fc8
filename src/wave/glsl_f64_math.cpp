// Double-precision exp, exp2, log, log2, sin, cos and tan in GLSL, which has f64 arithmetic
// but no f64 transcendental built-ins. Classic range reductions (Cody-Waite with split
// constants, as in fdlibm) and Taylor polynomials long enough that the truncation error is
// far below an ulp; results are within a few ulps of the C library for |x| < 2^20 (sin,
// cos, tan) and everywhere for the others. Subnormal inputs to log may be flushed by devices
// that flush f64 denormals.
#include "wave/glsl_helpers.hpp"

namespace wavestack::wave::glsl {

std::string double_math_helpers() {
  return R"(double wave_f64_bits(uint lo, uint hi) { return packDouble2x32(uvec2(lo, hi)); }
double wave_exp_f64(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return wave_f64_bits(0u, 0x7ff00000u);
  if (x < -745.1332191019412lf) return 0.0lf;
  double k = floor(x * 1.4426950408889634lf + 0.5lf);
  precise double r = (x - k * 6.93147180369123816490e-01lf) - k * 1.90821492927058770002e-10lf;
  precise double p = 1.6059043836821613e-10lf;
  p = p * r + 2.08767569878681e-09lf;
  p = p * r + 2.505210838544172e-08lf;
  p = p * r + 2.755731922398589e-07lf;
  p = p * r + 2.7557319223985893e-06lf;
  p = p * r + 2.48015873015873e-05lf;
  p = p * r + 0.0001984126984126984lf;
  p = p * r + 0.001388888888888889lf;
  p = p * r + 0.008333333333333333lf;
  p = p * r + 0.041666666666666664lf;
  p = p * r + 0.16666666666666666lf;
  p = p * r + 0.5lf;
  p = p * r + 1.0lf;
  p = p * r + 1.0lf;
  int e = int(k);
  // two steps, because ldexp is undefined beyond the exponent range of one step
  return ldexp(ldexp(p, e / 2), e - e / 2);
}
double wave_exp2_f64(double x) {
  if (isnan(x)) return x;
  if (x >= 1024.0lf) return wave_f64_bits(0u, 0x7ff00000u);
  if (x < -1075.0lf) return 0.0lf;
  double k = floor(x + 0.5lf);
  double e = wave_exp_f64((x - k) * 6.93147180559945309417e-01lf);
  int n = int(k);
  return ldexp(ldexp(e, n / 2), n - n / 2);
}
// log(x) = e * ln2 + log(m), m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s), s = (m-1)/(m+1).
// Returns log(m) and sets e; the caller handles zero, negative, inf and NaN.
double wave_log_parts(double x, out int e) {
  double m = frexp(x, e);
  if (m < 0.7071067811865476lf) { m = m * 2.0lf; e = e - 1; }
  precise double s = (m - 1.0lf) / (m + 1.0lf);
  precise double s2 = s * s;
  precise double t = 0.043478260869565216lf;
  t = t * s2 + 0.047619047619047616lf;
  t = t * s2 + 0.05263157894736842lf;
  t = t * s2 + 0.058823529411764705lf;
  t = t * s2 + 0.06666666666666667lf;
  t = t * s2 + 0.07692307692307693lf;
  t = t * s2 + 0.09090909090909091lf;
  t = t * s2 + 0.1111111111111111lf;
  t = t * s2 + 0.14285714285714285lf;
  t = t * s2 + 0.2lf;
  t = t * s2 + 0.3333333333333333lf;
  precise double result = 2.0lf * s + 2.0lf * s * (s2 * t);
  return result;
}
double wave_log_special(double x) {
  if (isnan(x) || x < 0.0lf) return wave_f64_bits(0u, 0x7ff80000u);
  if (x == 0.0lf) return wave_f64_bits(0u, 0xfff00000u);
  return x;  // +inf
}
double wave_log_f64(double x) {
  if (isnan(x) || x <= 0.0lf || isinf(x)) return wave_log_special(x);
  int e;
  double logm = wave_log_parts(x, e);
  precise double k = double(e);
  precise double result = (k * 1.90821492927058770002e-10lf + logm) + k * 6.93147180369123816490e-01lf;
  return result;
}
double wave_log2_f64(double x) {
  if (isnan(x) || x <= 0.0lf || isinf(x)) return wave_log_special(x);
  int e;
  double logm = wave_log_parts(x, e);
  precise double result = double(e) + logm * 1.4426950408889634lf;
  return result;
}
// x = k * pi/2 + r, |r| <= pi/4, with pi/2 split in three parts.
double wave_reduce_f64(double x, out int quadrant) {
  double k = floor(x * 0.6366197723675814lf + 0.5lf);
  quadrant = int(k - 4.0lf * floor(k * 0.25lf));
  precise double r = ((x - k * 1.57079632673412561417e+00lf) - k * 6.07710050630396597660e-11lf) -
                     k * 2.02226624871116645580e-21lf;
  return r;
}
double wave_sin_poly(double r) {
  precise double r2 = r * r;
  precise double p = -8.22063524662433e-18lf;
  p = p * r2 + 2.8114572543455206e-15lf;
  p = p * r2 - 7.647163731819816e-13lf;
  p = p * r2 + 1.6059043836821613e-10lf;
  p = p * r2 - 2.505210838544172e-08lf;
  p = p * r2 + 2.7557319223985893e-06lf;
  p = p * r2 - 0.0001984126984126984lf;
  p = p * r2 + 0.008333333333333333lf;
  p = p * r2 - 0.16666666666666666lf;
  precise double result = r + r * (r2 * p);
  return result;
}
double wave_cos_poly(double r) {
  precise double r2 = r * r;
  precise double p = 4.110317623312165e-19lf;
  p = p * r2 - 1.5619206968586225e-16lf;
  p = p * r2 + 4.779477332387385e-14lf;
  p = p * r2 - 1.1470745597729725e-11lf;
  p = p * r2 + 2.08767569878681e-09lf;
  p = p * r2 - 2.755731922398589e-07lf;
  p = p * r2 + 2.48015873015873e-05lf;
  p = p * r2 - 0.001388888888888889lf;
  p = p * r2 + 0.041666666666666664lf;
  precise double result = (1.0lf - 0.5lf * r2) + r2 * (r2 * p);
  return result;
}
double wave_sin_f64(double x) {
  if (isnan(x) || isinf(x)) return wave_f64_bits(0u, 0x7ff80000u);
  int q;
  double r = wave_reduce_f64(x, q);
  if (q == 0) return wave_sin_poly(r);
  if (q == 1) return wave_cos_poly(r);
  if (q == 2) return -wave_sin_poly(r);
  return -wave_cos_poly(r);
}
double wave_cos_f64(double x) {
  if (isnan(x) || isinf(x)) return wave_f64_bits(0u, 0x7ff80000u);
  int q;
  double r = wave_reduce_f64(x, q);
  if (q == 0) return wave_cos_poly(r);
  if (q == 1) return -wave_sin_poly(r);
  if (q == 2) return -wave_cos_poly(r);
  return wave_sin_poly(r);
}
double wave_tan_f64(double x) {
  if (isnan(x) || isinf(x)) return wave_f64_bits(0u, 0x7ff80000u);
  int q;
  double r = wave_reduce_f64(x, q);
  double s = wave_sin_poly(r);
  double c = wave_cos_poly(r);
  return (q & 1) == 0 ? s / c : -c / s;
}
)";
}

}  // namespace wavestack::wave::glsl
