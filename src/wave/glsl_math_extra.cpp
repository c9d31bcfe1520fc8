// The math functions GLSL lacks or computes too loosely (tanh ... copysign, the float
// classification tests), for f32 and f64 alike: one text per algorithm, instantiated for
// `float` (with GLSL's exp and log) and `double` (with glsl_f64_math.cpp's), so both types run
// the same tested code. The algorithms:
// - expm1: Taylor series for |x| < ln2/2, exp(x) - 1 outside (no cancellation there);
//   log1p: 2 atanh(x / (2 + x)) as a series near 0, log(1 + x) with the rounding of 1 + x
//   corrected elsewhere; log10: through log1p in [0.5, 2], where log loses accuracy near 1.
// - sinh, cosh, tanh: through expm1 (accurate near 0), exp(|x|/2)^2 / 2 for large |x|
//   (no overflow before the result overflows).
// - atan: reduced to |y| <= tan(pi/8) by 1/x and (x-1)/(x+1), then a Taylor series;
//   atan2 adds IEEE's quadrant and special-value rules; asin and acos are atan2 of
//   (x, sqrt((1-x)(1+x))).
// - erf, erfc: a Taylor series for |x| < 0.5; beyond, erfc(t) = exp(-t^2) erfcx(t) with t^2
//   split exactly (Dekker) and erfcx(t) = exp(t^2) erfc(t) from Taylor polynomials around
//   0.75, 1.25, ..., 3.75 (coefficients from the derivative recurrence of erfcx, computed in
//   50-digit arithmetic) and a continued fraction for t >= 4.
// - fmod: exact, by subtracting the divisor scaled into the remainder's binade (each step is
//   exact by Sterbenz's lemma); hypot: scaled, so no intermediate overflows.
// - isnan, isinf, isfinite, copysign: on the bits, which no compiler may fold away.
#include <string>
#include <utility>
#include <vector>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave {
namespace {

// Bit-level helpers: the only per-type code.
constexpr const char* kBitsF32 =
    R"(bool wave_isnan_f32(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool wave_isinf_f32(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }
bool wave_isfinite_f32(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }
bool wave_signbit_f32(float x) { return (floatBitsToUint(x) >> 31) != 0u; }
float wave_copysign_f32(float x, float y) {
  return uintBitsToFloat((floatBitsToUint(x) & 0x7fffffffu) | (floatBitsToUint(y) & 0x80000000u));
}
float wave_nan_f32() { return uintBitsToFloat(0x7fc00000u); }
// exp with its argument reduced exactly (Cody-Waite, ln 2 split so that k * high is exact):
// GLSL's exp(x) loses about |x| ulps to the rounding of x * log2(e) on some devices.
float wave_exp_accurate_f32(float x) {
  if ((floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u) return x;
  if (x >= 88.7228390) return uintBitsToFloat(0x7f800000u);  // the first float whose exp overflows
  if (x < -104.0) return 0.0;
  float k = floor(x * 1.44269504 + 0.5);
  precise float r = (x - k * 0.693145751953125) - k * 1.42860677e-06;
  int e = int(k);
  return ldexp(ldexp(exp(r), e / 2), e - e / 2);
}
float wave_inf_f32() { return uintBitsToFloat(0x7f800000u); }
)";

constexpr const char* kBitsF64 = R"(bool wave_isnan_f64(double x) {
  uvec2 w = unpackDouble2x32(x);
  uint high = w.y & 0x7fffffffu;
  return high > 0x7ff00000u || (high == 0x7ff00000u && w.x != 0u);
}
bool wave_isinf_f64(double x) {
  uvec2 w = unpackDouble2x32(x);
  return (w.y & 0x7fffffffu) == 0x7ff00000u && w.x == 0u;
}
bool wave_isfinite_f64(double x) { return (unpackDouble2x32(x).y & 0x7ff00000u) != 0x7ff00000u; }
bool wave_signbit_f64(double x) { return (unpackDouble2x32(x).y >> 31) != 0u; }
double wave_copysign_f64(double x, double y) {
  uvec2 w = unpackDouble2x32(x);
  return packDouble2x32(uvec2(w.x, (w.y & 0x7fffffffu) | (unpackDouble2x32(y).y & 0x80000000u)));
}
double wave_nan_f64() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
double wave_inf_f64() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
)";

// The algorithms; $T is the type, $S its suffix, $L the literal suffix, $EXP and $LOG the
// type's exp and log, $SPLIT Dekker's splitting constant, $STEPS the most fmod steps, $TINY
// the smallest normal number, $SCALE 2^24 (f32) or 2^54 (f64) and $SCALELN its log.
constexpr const char* kGeneric =
    R"(// trunc keeping the sign of a zero result: lavapipe (Mesa 22.3) returns +0 for trunc(-0.5)
// and trunc(-0.0) in f64, where IEEE 754 and the emulator give -0.
$T wave_trunc_$S($T x) {
  $T r = trunc(x);
  return r == 0.0$L ? wave_copysign_$S(r, x) : r;
}
$T wave_expm1_$S($T x) {
  if (wave_isnan_$S(x)) return x;
  if (abs(x) < 0.34657359027997264$L) {
    precise $T p = 1.0$L;
    for (int k = 17; k >= 2; --k) p = 1.0$L + x * p / $T(k);
    precise $T result = x * p;
    return result;
  }
  return $EXP(x) - 1.0$L;
}
$T wave_log1p_$S($T x) {
  if (wave_isnan_$S(x)) return x;
  if (x < -1.0$L) return wave_nan_$S();
  if (x == -1.0$L) return -wave_inf_$S();
  if (wave_isinf_$S(x) || abs(x) < 1e-20$L) return x;
  if (x > -0.29289321881345248$L && x < 0.41421356237309503$L) {
    precise $T s = x / (2.0$L + x);
    precise $T s2 = s * s;
    precise $T p = 0.0$L;
    for (int k = 13; k >= 0; --k) p = p * s2 + 1.0$L / $T(2 * k + 1);
    precise $T result = 2.0$L * s * p;
    return result;
  }
  precise $T u = 1.0$L + x;
  precise $T result = $LOG(u) - ((u - 1.0$L) - x) / u;
  return result;
}
$T wave_log10_$S($T x) {
  if (wave_isnan_$S(x) || x < 0.0$L) return wave_nan_$S();
  if (x == 0.0$L) return -wave_inf_$S();
  if (wave_isinf_$S(x)) return x;
  precise $T ln;
  if (x > 0.5$L && x < 2.0$L) {
    ln = wave_log1p_$S(x - 1.0$L);
  } else if (x < $TINY) {  // subnormal: scaled into the normal range, which log may require
    ln = $LOG(x * $SCALE) - $SCALELN;
  } else {
    ln = $LOG(x);
  }
  precise $T result = ln * 0.43429448190325182$L;
  return result;
}
$T wave_sinh_$S($T x) {
  if (x == 0.0$L || wave_isnan_$S(x)) return x;
  $T a = abs(x);
  precise $T r;
  if (a < 22.0$L) {
    $T t = wave_expm1_$S(a);
    r = 0.5$L * (t + t / (t + 1.0$L));
  } else {
    $T h = $EXP(0.5$L * a);
    r = (0.5$L * h) * h;
  }
  return x < 0.0$L ? -r : r;
}
$T wave_cosh_$S($T x) {
  if (wave_isnan_$S(x)) return x;
  $T a = abs(x);
  precise $T r;
  if (a < 22.0$L) {
    $T t = wave_expm1_$S(a);
    r = 1.0$L + (t * t) / (2.0$L * (1.0$L + t));
  } else {
    $T h = $EXP(0.5$L * a);
    r = (0.5$L * h) * h;
  }
  return r;
}
$T wave_tanh_$S($T x) {
  if (x == 0.0$L || wave_isnan_$S(x)) return x;
  $T a = abs(x);
  precise $T r = 1.0$L;
  if (a < 22.0$L) {
    $T t = wave_expm1_$S(2.0$L * a);
    r = t / (t + 2.0$L);
  }
  return x < 0.0$L ? -r : r;
}
$T wave_atan_$S($T x) {
  if (x == 0.0$L || wave_isnan_$S(x)) return x;
  $T a = abs(x);
  bool inverted = a > 1.0$L;
  precise $T y = inverted ? 1.0$L / a : a;
  precise $T base = 0.0$L;
  if (y > 0.41421356237309503$L) {
    y = (y - 1.0$L) / (y + 1.0$L);
    base = 0.78539816339744831$L;
  }
  precise $T y2 = y * y;
  precise $T p = 0.0$L;
  for (int k = 22; k >= 0; --k) p = p * y2 + ((k & 1) == 0 ? 1.0$L : -1.0$L) / $T(2 * k + 1);
  precise $T r = base + y * p;
  if (inverted) r = 1.5707963267948966$L - r;
  return x < 0.0$L ? -r : r;
}
// n / m for 0 <= n <= m with m finite and nonzero; a large m is first scaled into [0.5, 1)
// (exactly, as n): Vulkan bounds the error of x / y only for |y| in [2^-126, 2^126], and NVIDIA
// divides by multiplying with 1 / y, which for |y| near the largest float is subnormal, so
// flushed to 0 (atan2(FLT_MAX, FLT_MAX) came out 0, hypot(FLT_MAX, FLT_MAX) finite). A small m
// is divided as it is: frexp is undefined for subnormals (lavapipe's does not normalise them).
$T wave_ratio_$S($T n, $T m) {
  if (m < 1.8446744073709552e19$L) return n / m;  // 2^64
  int e;
  $T scaled = frexp(m, e);
  return ldexp(n, -e) / scaled;
}
$T wave_atan2_$S($T y, $T x) {
  if (wave_isnan_$S(x) || wave_isnan_$S(y)) return wave_nan_$S();
  $T ay = abs(y);
  $T ax = abs(x);
  precise $T r;
  if (wave_isinf_$S(ay) && wave_isinf_$S(ax)) {
    r = 0.78539816339744831$L;
  } else if (ay == 0.0$L || wave_isinf_$S(ax)) {
    r = 0.0$L;
  } else if (ax == 0.0$L || wave_isinf_$S(ay)) {
    r = 1.5707963267948966$L;
  } else if (ay <= ax) {
    r = wave_atan_$S(wave_ratio_$S(ay, ax));
  } else {
    r = 1.5707963267948966$L - wave_atan_$S(wave_ratio_$S(ax, ay));
  }
  if (wave_signbit_$S(x)) r = 3.1415926535897931$L - r;
  return wave_signbit_$S(y) ? -r : r;
}
$T wave_asin_$S($T x) {
  if (wave_isnan_$S(x) || abs(x) > 1.0$L) return wave_nan_$S();
  precise $T c = sqrt((1.0$L - x) * (1.0$L + x));
  return wave_atan2_$S(x, c);
}
$T wave_acos_$S($T x) {
  if (wave_isnan_$S(x) || abs(x) > 1.0$L) return wave_nan_$S();
  precise $T c = sqrt((1.0$L - x) * (1.0$L + x));
  return wave_atan2_$S(c, x);
}
$T wave_hypot_$S($T x, $T y) {
  if (wave_isinf_$S(x) || wave_isinf_$S(y)) return wave_inf_$S();
  if (wave_isnan_$S(x) || wave_isnan_$S(y)) return wave_nan_$S();
  $T a = abs(x);
  $T b = abs(y);
  $T m = max(a, b);
  $T n = min(a, b);
  if (m == 0.0$L) return 0.0$L;
  precise $T q = wave_ratio_$S(n, m);
  precise $T r = m * sqrt(1.0$L + q * q);
  return r;
}
// r mod b for r >= 0 and a normal b > 0 (frexp and ldexp then see normal numbers only).
$T wave_cfmod_loop_$S($T r, $T b) {
  int eb;
  frexp(b, eb);
  for (int i = 0; i < $STEPS && r >= b; ++i) {
    int er;
    frexp(r, er);
    precise $T s = ldexp(b, er - eb);
    if (s > r) s = ldexp(b, er - eb - 1);
    r = r - s;
  }
  return r;
}
$T wave_cfmod_$S($T x, $T y) {
  if (wave_isnan_$S(x) || wave_isnan_$S(y) || wave_isinf_$S(x) || y == 0.0$L) return wave_nan_$S();
  $T b = abs(y);
  precise $T r = abs(x);
  if (wave_isinf_$S(y) || r < b) return x;
  if (b < $TINY) {  // a subnormal divisor: reduce modulo b * 2^k, then scale both up by 2^k
    r = wave_cfmod_loop_$S(r, b * $SCALE);
    r = wave_cfmod_loop_$S(r * $SCALE, b * $SCALE) / $SCALE;
  } else {
    r = wave_cfmod_loop_$S(r, b);
  }
  return wave_copysign_$S(r, x);
}
// erfcx(c + h) = sum_k table[19 i + k] h^k, c = 0.75 + i / 2, |h| <= 0.25 (error < 1e-17)
const $T wave_erfcx_table_$S[133] = $T[133](
    5.0693765029314481e-1$L, -3.6797269165579537e-1$L, 2.3095813155129828e-1$L, -1.2983606199488110e-1$L,
    6.6790542527568727e-2$L, -3.1897262039681823e-2$L, 1.4289198665935787e-2$L, -6.0515322972085665e-3$L,
    2.4376373607573405e-3$L, -9.3851206147568025e-4$L, 3.4675066293011606e-4$L, -1.2335437532328967e-4$L,
    4.2372480239608134e-5$L, -1.4088463868243626e-5$L, 4.5437331912036306e-6$L, -1.4240885299787871e-6$L,
    4.3445834921494254e-7$L, -1.2920526683148003e-7$L, 3.7506044343481391e-8$L, 3.6782291645236109e-1$L,
    -2.0882187596460984e-1$L, 1.0679557149659879e-1$L, -5.0218274395907569e-2$L, 2.2011364250857165e-2$L,
    -9.0816276329344449e-3$L, 3.5531099032297030e-3$L, -1.3257829296849475e-3$L, 4.7397031028087967e-4$L,
    -1.6296000929641064e-4$L, 5.4054059732073273e-5$L, -1.7344079023876191e-5$L, 5.3956601587046723e-6$L,
    -1.6306928962300539e-6$L, 4.7961343405958641e-7$L, -1.3749014715407612e-7$L, 3.8468843764623908e-8$L,
    -1.0518128523328969e-8$L, 2.8134647900514107e-9$L, 2.8497223473743639e-1$L, -1.3097634551448521e-1$L,
    5.5763630087087269e-2$L, -2.2259995241388328e-2$L, 8.4043192073288478e-3$L, -3.0209746514251375e-3$L,
    1.0392045224449524e-3$L, -3.4353335347042024e-4$L, 1.0950528846792924e-4$L, -3.3755355255898684e-5$L,
    1.0086683354021308e-5$L, -2.9279380702475262e-6$L, 8.2713195518135628e-7$L, -2.2776263825848502e-7$L,
    6.1221048318429642e-8$L, -1.6083440493497754e-8$L, 4.1343784318510716e-9$L, -1.0409739103245151e-9$L,
    2.5696378764257447e-10$L, 2.3108725873039187e-1$L, -8.8486502808749159e-2$L, 3.1992627410706262e-2$L,
    -1.1002060756440046e-2$L, 3.6189953543580788e-3$L, -1.1437284836537476e-3$L, 3.4853542204571558e-4$L,
    -1.0272108115739644e-4$L, 2.9353247360393395e-5$L, -8.1502832436691787e-6$L, 2.2030220124275486e-6$L,
    -5.8063340285585352e-7$L, 1.4943280933364636e-7$L, -3.7601474131561416e-8$L, 9.2613560768047397e-9$L,
    -2.2351230611667669e-9$L, 5.2904114864743927e-10$L, -1.2291535020117983e-10$L, 2.8053512299420518e-11$L,
    1.9366209627906868e-1$L, -6.3237637560634842e-2$L, 1.9758592987322864e-2$L, -5.9343378969979766e-3$L,
    1.7195818852892143e-3$L, -4.8219508498105489e-4$L, 1.3118180053043779e-4$L, -3.4698609577814559e-5$L,
    8.9401560478619390e-6$L, -2.2473734324876059e-6$L, 5.5197582170420455e-7$L, -1.3262544050928062e-7$L,
    3.1209310050613808e-8$L, -7.1999750569373303e-9$L, 1.6299112348623071e-9$L, -3.6236255480879809e-10$L,
    7.9176776142264044e-11$L, -1.7014872990302585e-11$L, 3.5984306021035482e-12$L, 1.6633534842682188e-1$L,
    -4.7199402321170375e-2$L, 1.2937290883018158e-2$L, -3.4354713009075738e-3$L, 8.8600457753427169e-4$L,
    -2.2238256956847632e-4$L, 5.4420408812241221e-5$L, -1.3004640265340671e-5$L, 3.0388319874710102e-6$L,
    -6.9520806801330836e-7$L, 1.5588115328555161e-7$L, -3.4289876333684659e-8$L, 7.4065092001794115e-9$L,
    -1.5721109897079341e-9$L, 3.2816406908980369e-10$L, -6.7410368688809613e-11$L, 1.3635046356396555e-11$L,
    -2.7172315330024481e-12$L, 5.3378265268206657e-13$L, 1.4558972127503854e-1$L, -3.6456257532723531e-2$L,
    8.8787555273252976e-3$L, -2.1072828701691100e-3$L, 4.8822238209556745e-4$L, -1.1057957492429284e-4$L,
    2.4516325376489771e-5$L, -5.3266727892731996e-6$L, 1.1353256041788180e-6$L, -2.3760039413391826e-7$L,
    4.8864825235324907e-8$L, -9.8831453638999737e-9$L, 1.9671716867833342e-9$L, -3.8557715976345700e-10$L,
    7.4465333952910065e-11$L, -1.4177620992005901e-11$L, 2.6624069041109920e-12$L, -4.9336412959878596e-13$L,
    9.0254602012838298e-14$L);
// erf(x) = x sum_k table[k] x^(2k) for |x| < 0.5: 2/sqrt(pi) (-1)^k / (k! (2k + 1))
const $T wave_erf_small_table_$S[13] = $T[13](
    1.1283791670955126$L, -3.7612638903183752e-1$L, 1.1283791670955126e-1$L, -2.6866170645131252e-2$L,
    5.2239776254421878e-3$L, -8.5483270234508528e-4$L, 1.2055332981789664e-4$L, -1.4925650358406251e-5$L,
    1.6462114365889247e-6$L, -1.6365844691234924e-7$L, 1.4807192815879217e-8$L, -1.2290555301717927e-9$L,
    9.422759064650411e-11$L);
$T wave_erfcx_$S($T t) {
  if (t < 4.0$L) {
    int i = int((t - 0.5$L) * 2.0$L);
    precise $T h = t - (0.75$L + 0.5$L * $T(i));
    precise $T p = 0.0$L;
    for (int k = 18; k >= 0; --k) p = p * h + wave_erfcx_table_$S[i * 19 + k];
    return p;
  }
  precise $T f = t;
  for (int k = 24; k >= 1; --k) f = t + (0.5$L * $T(k)) / f;
  precise $T result = 0.56418958354775628$L / f;
  return result;
}
$T wave_exp_neg_square_$S($T t) {
  precise $T c = t * $SPLIT;
  precise $T high = c - (c - t);
  precise $T low = t - high;
  precise $T rest = low * (high + t);
  precise $T result = $EXP(-(high * high)) * $EXP(-rest);
  return result;
}
$T wave_erf_small_$S($T x) {
  precise $T x2 = x * x;
  precise $T p = 0.0$L;
  for (int k = 12; k >= 0; --k) p = p * x2 + wave_erf_small_table_$S[k];
  precise $T result = x * p;
  return result;
}
$T wave_erf_$S($T x) {
  if (wave_isnan_$S(x)) return x;
  $T t = abs(x);
  if (t < 0.5$L) return wave_erf_small_$S(x);
  precise $T r = t > 6.0$L ? 1.0$L : 1.0$L - wave_exp_neg_square_$S(t) * wave_erfcx_$S(t);
  return x < 0.0$L ? -r : r;
}
$T wave_erfc_$S($T x) {
  if (wave_isnan_$S(x)) return x;
  $T t = abs(x);
  if (t < 0.5$L) return 1.0$L - wave_erf_small_$S(x);
  precise $T r = t > 27.3$L ? 0.0$L : wave_exp_neg_square_$S(t) * wave_erfcx_$S(t);
  return x < 0.0$L ? 2.0$L - r : r;
}
)";

std::string substitute(std::string text, const std::vector<std::pair<std::string, std::string>>& names) {
  for (const auto& [from, to] : names) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  return text;
}

std::string helpers_for(ScalarType t) {
  if (t == ScalarType::F64) {
    return kBitsF64 + substitute(kGeneric, {{"$EXP", "wave_exp_f64"},
                                            {"$TINY", "2.2250738585072014e-308lf"},
                                            {"$SCALELN", "37.429947750237048lf"},
                                            {"$SCALE", "18014398509481984.0lf"},
                                            {"$LOG", "wave_log_f64"},
                                            {"$SPLIT", "134217729.0lf"},
                                            {"$STEPS", "2100"},
                                            {"$T", "double"},
                                            {"$S", "f64"},
                                            {"$L", "lf"}});
  }
  return kBitsF32 + substitute(kGeneric, {{"$EXP", "wave_exp_accurate_f32"},
                                          {"$TINY", "1.17549435e-38"},
                                          {"$SCALELN", "16.6355323"},
                                          {"$SCALE", "16777216.0"},
                                          {"$LOG", "log"},
                                          {"$SPLIT", "4097.0"},
                                          {"$STEPS", "280"},
                                          {"$T", "float"},
                                          {"$S", "f32"},
                                          {"$L", ""}});
}

}  // namespace

namespace glsl_detail {

bool Emitter::is_math_extra(Opcode op) {
  return op >= Opcode::Tanh && op <= Opcode::Copysign;
}

std::string Emitter::math_extra(const Stmt& s) {
  const ScalarType t = type_of(s.args[0]);  // the classification tests give bool: use the operand
  const std::string suffix = glsl::suffix(t);
  if (t == ScalarType::F64) add_helper("f64_math", "");  // wave_exp_f64 and wave_log_f64
  add_helper("math_extra_" + suffix, helpers_for(t));
  const std::string a = r(s.args[0]);
  const std::string name = std::string(op_info(s.op).name);
  if (op_info(s.op).operands == 1) return "wave_" + name + "_" + suffix + "(" + a + ")";
  const std::string function = s.op == Opcode::Fmod ? "cfmod" : name;  // wave_fmod_* is Python's %
  return "wave_" + function + "_" + suffix + "(" + a + ", " + r(s.args[1]) + ")";
}

}  // namespace glsl_detail
}  // namespace wavestack::wave
