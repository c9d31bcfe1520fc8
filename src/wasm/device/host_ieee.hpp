// The host's IEEE 754 hardware under the numerics library's names, for the C++ build (the cpu
// device and the tests); the GLSL and the Vulkan device never see this file.
//
// Why the results are the library's, bit for bit: IEEE 754 defines every non-NaN result of
// add, sub, mul, div, sqrt, the comparisons, promotion, demotion and the integer -> float
// conversions exactly (one rounding, to nearest with ties to even, subnormals kept, signed zeros
// by its rules), and the software library (f32.glsl, f64.glsl, convert.glsl) implements exactly
// that. Scalar SSE2 on x86-64 and the FP unit of AArch64 do too, as long as the floating-point
// environment is the default one: round to nearest, and no flush-to-zero / denormals-are-zero
// (x86 MXCSR 0x1F80; AArch64 FPCR with FZ clear). Only NaN results differ (the hardware keeps
// or invents payloads, the library always returns the positive canonical NaN), so every
// function below checks its hardware result and, when it is a NaN, returns the software
// function's answer for the same operands: the library's NaN rule holds by construction, and
// the extra call costs nothing on the paths that matter. tests/cpp/test_numerics_host_ieee.cpp
// compares every function here with its software twin over special and random operands.
//
// Contract with the includer (numerics.hpp does all of this):
// - Include it inside the library's namespace, after prelude.hpp (whose <bit> and <cstdint>
//   this file needs; they are already included at global scope, so the includes below only
//   document that) and after f32.glsl, f64.glsl and convert.glsl compiled with each public name
//   defined here renamed to <name>_soft (f64_add -> f64_add_soft, ...). Each function here calls
//   its _soft twin, so a missing rename fails to compile rather than silently running the
//   software path. numeric_dispatch.glsl and every other user come after this file.
// - Compile without -ffast-math or -ffinite-math-only (checked below) and with
//   __FLT_EVAL_METHOD__ == 0 (no x87 excess precision; checked below).
// - Run with the default floating-point environment (see above). The operating system starts
//   every process with it and threads inherit it; nothing in wavestack changes it. A library
//   linked with -ffast-math into the same process could set FTZ/DAZ at load time: that would
//   make subnormal results differ from the Vulkan device. host_ieee_environment_is_default()
//   detects it; the cpu device checks it before each chunk of instances a thread runs
//   (CpuInstances::step) and raises rather than compute different bits.
//
// The text depends on nothing else in the repository, so it can be pasted into generated C++
// after the same renamed library.

#include <bit>
#include <cstdint>

#if !(defined(__x86_64__) && defined(__SSE2__)) && !defined(__aarch64__)
#error "host_ieee.hpp: only x86-64 (SSE2) and AArch64 are known to match the library; define WAVESTACK_SOFT_FLOAT"
#endif
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "host_ieee.hpp: -ffast-math / -ffinite-math-only break IEEE semantics; compile without them"
#endif
#if !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ != 0
#error "host_ieee.hpp: float and double must be evaluated in their own precision (FLT_EVAL_METHOD 0)"
#endif

// --- bit patterns <-> host floats ---------------------------------------------------------
inline float f32_to_host(uint a) {
  return std::bit_cast<float>(a);
}
inline uint f32_from_host(float v) {
  return std::bit_cast<uint>(v);
}
// On a little-endian host uvec2 {x = low word, y = high word} has the double's layout: one
// bit_cast lets the compiler keep a value in a floating-point register between operations
// (assembling it from the two words costs two register moves and a shift per operation).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static_assert(sizeof(uvec2) == 8);
inline std::uint64_t host_ieee_u64(uvec2 a) {
  return std::bit_cast<std::uint64_t>(a);
}
inline double f64_to_host(uvec2 a) {
  return std::bit_cast<double>(a);
}
inline uvec2 f64_from_host(double v) {
  return std::bit_cast<uvec2>(v);
}
#else
inline std::uint64_t host_ieee_u64(uvec2 a) {
  return (std::uint64_t{a.y} << 32) | a.x;
}
inline double f64_to_host(uvec2 a) {
  return std::bit_cast<double>(host_ieee_u64(a));
}
inline uvec2 f64_from_host(double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  return uvec2(static_cast<uint>(bits), static_cast<uint>(bits >> 32));
}
#endif

// Makes the compiler treat `v` as an opaque register value, so that each operation rounds where
// the library rounds. Under -ffp-contract=fast (GCC's default in GNU modes) on an FMA-capable
// target (every AArch64; x86-64 with -mfma or -march=native) a compiler may fuse an inlined
// multiply and a following add into one fused multiply-add, which rounds once instead of twice.
// GCC 12 (x86-64, AArch64) and Clang 14 (x86-64) do not fuse here even without this (the NaN
// check below is a second use of the product), but that is an optimizer heuristic; the barrier
// makes it a guarantee. The empty asm emits no instruction.
inline float host_ieee_rounded(float v) {
#if defined(__x86_64__)
  asm("" : "+x"(v));
#else
  asm("" : "+w"(v));
#endif
  return v;
}
inline double host_ieee_rounded(double v) {
#if defined(__x86_64__)
  asm("" : "+x"(v));
#else
  asm("" : "+w"(v));
#endif
  return v;
}

// The bits of the hardware result `r`, or, when `r` is a NaN, what the software library
// returns for the same operands: the positive canonical NaN, whatever their payloads and signs
// (every NaN result of the library is; the numerics tests compare both paths on NaN operands).
// The choice is made on the value itself: a fallback to the software function, which takes
// the operands' bit patterns, made GCC keep f64 values in integer registers and move them to
// and from the FPU around every operation, a few cycles each on a loop's chain of dependent
// operations.
// (A call, not a constant: the compiler would turn a select of the constant into a
// conditional move through an integer register, on the chain again. It returns a float so that
// the result stays one in both branches.)
[[gnu::noinline, gnu::cold]] inline float f32_canonical_nan_host() {
  return std::bit_cast<float>(F32_CANONICAL_NAN);
}
[[gnu::noinline, gnu::cold]] inline double f64_canonical_nan_host() {
  return std::bit_cast<double>(std::uint64_t{0x7FF8000000000000});
}
inline uint f32_result(float r) {
  r = host_ieee_rounded(r);
  if (__builtin_isnan(r)) [[unlikely]]
    r = f32_canonical_nan_host();
  return f32_from_host(r);
}
inline uvec2 f64_result(double r) {
  r = host_ieee_rounded(r);
  if (__builtin_isnan(r)) [[unlikely]]
    r = f64_canonical_nan_host();
  return f64_from_host(r);
}

// --- arithmetic ---------------------------------------------------------------------------
// (sqrt: with -fmath-errno, the default, the builtin still compiles to the sqrt instruction
// and calls libm only for a negative operand, to set errno; the result is a NaN either way.)
inline uint f32_add(uint a, uint b) {
  return f32_result(f32_to_host(a) + f32_to_host(b));
}
inline uint f32_sub(uint a, uint b) {
  return f32_result(f32_to_host(a) - f32_to_host(b));
}
inline uint f32_mul(uint a, uint b) {
  return f32_result(f32_to_host(a) * f32_to_host(b));
}
inline uint f32_div(uint a, uint b) {
  return f32_result(f32_to_host(a) / f32_to_host(b));
}
inline uint f32_sqrt(uint a) {
  return f32_result(__builtin_sqrtf(f32_to_host(a)));
}

inline uvec2 f64_add(uvec2 a, uvec2 b) {
  return f64_result(f64_to_host(a) + f64_to_host(b));
}
inline uvec2 f64_sub(uvec2 a, uvec2 b) {
  return f64_result(f64_to_host(a) - f64_to_host(b));
}
inline uvec2 f64_mul(uvec2 a, uvec2 b) {
  return f64_result(f64_to_host(a) * f64_to_host(b));
}
inline uvec2 f64_div(uvec2 a, uvec2 b) {
  return f64_result(f64_to_host(a) / f64_to_host(b));
}
inline uvec2 f64_sqrt(uvec2 a) {
  return f64_result(__builtin_sqrt(f64_to_host(a)));
}

// --- comparisons --------------------------------------------------------------------------
// IEEE comparisons are the library's: false with a NaN operand (so ne is true), -0 == +0.
// No NaN is produced, so there is nothing to fall back for.
inline uint f32_eq(uint a, uint b) {
  return f32_to_host(a) == f32_to_host(b) ? 1u : 0u;
}
inline uint f32_ne(uint a, uint b) {
  return f32_to_host(a) != f32_to_host(b) ? 1u : 0u;
}
inline uint f32_lt(uint a, uint b) {
  return f32_to_host(a) < f32_to_host(b) ? 1u : 0u;
}
inline uint f32_gt(uint a, uint b) {
  return f32_to_host(a) > f32_to_host(b) ? 1u : 0u;
}
inline uint f32_le(uint a, uint b) {
  return f32_to_host(a) <= f32_to_host(b) ? 1u : 0u;
}
inline uint f32_ge(uint a, uint b) {
  return f32_to_host(a) >= f32_to_host(b) ? 1u : 0u;
}

inline uint f64_eq(uvec2 a, uvec2 b) {
  return f64_to_host(a) == f64_to_host(b) ? 1u : 0u;
}
inline uint f64_ne(uvec2 a, uvec2 b) {
  return f64_to_host(a) != f64_to_host(b) ? 1u : 0u;
}
inline uint f64_lt(uvec2 a, uvec2 b) {
  return f64_to_host(a) < f64_to_host(b) ? 1u : 0u;
}
inline uint f64_gt(uvec2 a, uvec2 b) {
  return f64_to_host(a) > f64_to_host(b) ? 1u : 0u;
}
inline uint f64_le(uvec2 a, uvec2 b) {
  return f64_to_host(a) <= f64_to_host(b) ? 1u : 0u;
}
inline uint f64_ge(uvec2 a, uvec2 b) {
  return f64_to_host(a) >= f64_to_host(b) ? 1u : 0u;
}

// --- min/max ------------------------------------------------------------------------------
// The library's rule written with hardware comparisons (not minss/minsd, whose NaN and zero
// handling is operand-order dependent): the smaller of two ordered unequal values; for equal
// values their bits ORed (min: -0 wins over +0) or ANDed (max: +0 wins), as in f32.glsl; a NaN
// operand goes to the software function (which returns the canonical NaN).
inline uint f32_min(uint a, uint b) {
  const float x = f32_to_host(a);
  const float y = f32_to_host(b);
  if (x < y) return a;
  if (y < x) return b;
  if (x == y) return a | b;
  return f32_min_soft(a, b);
}

inline uint f32_max(uint a, uint b) {
  const float x = f32_to_host(a);
  const float y = f32_to_host(b);
  if (x > y) return a;
  if (y > x) return b;
  if (x == y) return a & b;
  return f32_max_soft(a, b);
}

inline uvec2 f64_min(uvec2 a, uvec2 b) {
  const double x = f64_to_host(a);
  const double y = f64_to_host(b);
  if (x < y) return a;
  if (y < x) return b;
  if (x == y) return uvec2(a.x | b.x, a.y | b.y);
  return f64_min_soft(a, b);
}

inline uvec2 f64_max(uvec2 a, uvec2 b) {
  const double x = f64_to_host(a);
  const double y = f64_to_host(b);
  if (x > y) return a;
  if (y > x) return b;
  if (x == y) return uvec2(a.x & b.x, a.y & b.y);
  return f64_max_soft(a, b);
}

// --- rounding to an integral value --------------------------------------------------------
// One instruction where the target has it at compile time (SSE4.1 roundss/roundsd; AArch64
// frint*). Without it the builtins would become libm calls, no faster than the library, so the
// software functions are used. nearbyint rounds in the current mode, which the contract above
// makes round-to-nearest-even: wasm's nearest. (__builtin_roundeven would not need that, but
// Clang 14 lacks it.)
#if defined(__SSE4_1__) || defined(__aarch64__)
inline uint f32_ceil(uint a) {
  return f32_result(__builtin_ceilf(f32_to_host(a)));
}
inline uint f32_floor(uint a) {
  return f32_result(__builtin_floorf(f32_to_host(a)));
}
inline uint f32_trunc(uint a) {
  return f32_result(__builtin_truncf(f32_to_host(a)));
}
inline uint f32_nearest(uint a) {
  return f32_result(__builtin_nearbyintf(f32_to_host(a)));
}
inline uvec2 f64_ceil(uvec2 a) {
  return f64_result(__builtin_ceil(f64_to_host(a)));
}
inline uvec2 f64_floor(uvec2 a) {
  return f64_result(__builtin_floor(f64_to_host(a)));
}
inline uvec2 f64_trunc(uvec2 a) {
  return f64_result(__builtin_trunc(f64_to_host(a)));
}
inline uvec2 f64_nearest(uvec2 a) {
  return f64_result(__builtin_nearbyint(f64_to_host(a)));
}
#else
inline uint f32_ceil(uint a) {
  return f32_ceil_soft(a);
}
inline uint f32_floor(uint a) {
  return f32_floor_soft(a);
}
inline uint f32_trunc(uint a) {
  return f32_trunc_soft(a);
}
inline uint f32_nearest(uint a) {
  return f32_nearest_soft(a);
}
inline uvec2 f64_ceil(uvec2 a) {
  return f64_ceil_soft(a);
}
inline uvec2 f64_floor(uvec2 a) {
  return f64_floor_soft(a);
}
inline uvec2 f64_trunc(uvec2 a) {
  return f64_trunc_soft(a);
}
inline uvec2 f64_nearest(uvec2 a) {
  return f64_nearest_soft(a);
}
#endif

// --- conversions --------------------------------------------------------------------------
// Promotion is exact; demotion and the integer conversions round once, to nearest even, in the
// default environment (the C++ conversions compile to cvtss2sd / cvtsd2ss / cvtsi2s[sd] and
// their AArch64 counterparts; unsigned 64-bit sources use the compilers' correctly rounded
// sequences, which the differential test covers). Only promotion and demotion can give NaN.
inline uvec2 f64_promote_f32(uint a) {
  return f64_result(static_cast<double>(f32_to_host(a)));
}
inline uint f32_demote_f64(uvec2 a) {
  return f32_result(static_cast<float>(f64_to_host(a)));
}

inline uint f32_convert_i32_s(uint a) {
  return f32_from_host(static_cast<float>(static_cast<std::int32_t>(a)));
}
inline uint f32_convert_i32_u(uint a) {
  return f32_from_host(static_cast<float>(a));
}
inline uint f32_convert_i64_s(uvec2 a) {
  return f32_from_host(static_cast<float>(static_cast<std::int64_t>(host_ieee_u64(a))));
}
inline uint f32_convert_i64_u(uvec2 a) {
  return f32_from_host(static_cast<float>(host_ieee_u64(a)));
}
inline uvec2 f64_convert_i32_s(uint a) {
  return f64_from_host(static_cast<double>(static_cast<std::int32_t>(a)));
}
inline uvec2 f64_convert_i32_u(uint a) {
  return f64_from_host(static_cast<double>(a));
}
inline uvec2 f64_convert_i64_s(uvec2 a) {
  return f64_from_host(static_cast<double>(static_cast<std::int64_t>(host_ieee_u64(a))));
}
inline uvec2 f64_convert_i64_u(uvec2 a) {
  return f64_from_host(static_cast<double>(host_ieee_u64(a)));
}

// Whether the floating-point environment is the one the fast path needs: round to nearest even,
// subnormal results kept (no FTZ) and subnormal operands not read as zero (no DAZ / FZ). Tested
// by computing, so it needs no platform header; `volatile` keeps the compiler from folding it.
inline bool host_ieee_environment_is_default() {
  volatile double smallest_normal = 0x1p-1022;
  volatile double smallest_subnormal = 0x1p-1074;
  volatile double one = 1.0;
  const bool keeps_subnormal_results = smallest_normal * 0.5 != 0.0;
  const bool reads_subnormal_operands = smallest_subnormal * one != 0.0;
  // A tie stays at the even 1 (not upward), and just above the tie rounds up (not down or
  // toward zero): only round-to-nearest-even passes both.
  const bool rounds_to_nearest_even = one + 0x1p-53 == 1.0 && one + 0x1.0000000000001p-53 != 1.0;
  return keeps_subnormal_results && reads_subnormal_operands && rounds_to_nearest_even;
}
