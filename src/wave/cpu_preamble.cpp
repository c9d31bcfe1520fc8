#include "wave/cpu_preamble.hpp"

namespace wavestack::wave {
namespace {

// Without headers: the fixed-width names, the records (cpu_abi.hpp), the math functions the
// emulator calls through <cmath> (so results are the same C library's), and one helper per
// operation whose C++ meaning differs from the emulator's (wrapping integers, Python's // and
// %, saturating conversions, shift counts masked to the width, NaN-keeping min and max).
constexpr const char* kPreamble = R"CPP(
  typedef int i32;
  typedef unsigned int u32;
  typedef long long i64;
  typedef unsigned long long u64;
  typedef unsigned short u16;
  typedef float f32;
  typedef double f64;

  struct WaveBuffer {
    void* data;
    i64 length;
  };
  struct WaveFault {
    u32 code, line, group[3], local, mem, is_signed;
    u64 value, size, dim;
  };
  struct WaveLaunch {
    const WaveBuffer* buffers;
    const u64* scalars;
    u32 grid[3], workgroup[3], limit[3], wave_width;
    const int* stop;
    const int* failed;
    f32 (*half_to_float)(u16);
    u16 (*float_to_half)(f32);
  };
  static_assert(sizeof(WaveFault) == 56 && sizeof(WaveLaunch) == 88, "cpu_abi.hpp and the preamble disagree");

  enum : u32 {
    WAVE_OK = 0,
    WAVE_OUT_OF_BOUNDS = 1,
    WAVE_INDEX_RANGE = 2,
    WAVE_DIV_ZERO = 3,
    WAVE_NEG_EXPONENT = 4,
    WAVE_STOPPED = 5,
    WAVE_BARRIER_DIVERGENT = 6,
    WAVE_DEADLOCK = 7,
    WAVE_INACTIVE_LANE = 8
  };

  // Records a fault with the thread's place; the kernel returns its code.
  __attribute__((noinline, cold)) inline u32 wave_fault(WaveFault* f, u32 code, u32 line, u32 gx, u32 gy, u32 gz,
                                                        u32 local, u32 mem, u32 is_signed, u64 value, u64 size,
                                                        u64 dim) {
    f->code = code;
    f->line = line;
    f->group[0] = gx;
    f->group[1] = gy;
    f->group[2] = gz;
    f->local = local;
    f->mem = mem;
    f->is_signed = is_signed;
    f->value = value;
    f->size = size;
    f->dim = dim;
    return code;
  }
  // At a barrier in workgroup mode (lane states: cpp_workgroup.cpp): the emulator's checks in
  // its order. A wave whose launched lanes did not all arrive is divergent (value: the lanes
  // that arrived, size: those missing, is_signed: whether a missing one returned); a wave with
  // none arrived, while another waits, is a deadlock (value: that wave).
  inline u32 wave_barrier_check(const u16* state, u32 n, u32 width, WaveFault* f, u32 line, u32 gx, u32 gy, u32 gz) {
    const u32 waves = (n + width - 1) / width;
    int waiting = -1;
    for (u32 w = 0; w < waves; ++w) {
      u64 launched = 0, reached = 0, returned = 0;
      for (u32 l = 0; l < width && w * width + l < n; ++l) {
        const u16 s = state[w * width + l];
        if (s != 4) launched |= 1ULL << l;
        if (s == 0) reached |= 1ULL << l;
        if (s == 1) returned |= 1ULL << l;
      }
      if (launched == 0 || reached == 0) continue;
      if (reached != launched) {
        const u64 missing = launched & ~reached;
        return wave_fault(f, WAVE_BARRIER_DIVERGENT, line, gx, gy, gz, w * width + (u32)__builtin_ctzll(missing), w,
                          (missing & returned) != 0, reached, missing, 0);
      }
      if (waiting < 0) waiting = (int)w;
    }
    if (waiting < 0) return WAVE_OK;
    for (u32 w = 0; w < waves; ++w) {
      bool launched = false, reached = false;
      for (u32 l = 0; l < width && w * width + l < n; ++l) {
        launched = launched || state[w * width + l] != 4;
        reached = reached || state[w * width + l] == 0;
      }
      if (launched && !reached) {
        return wave_fault(f, WAVE_DEADLOCK, line, gx, gy, gz, (u32)waiting * width, (u32)waiting, 0, w, 0, 0);
      }
    }
    return WAVE_OK;
  }
  inline bool wave_stopped(const int* flag) {
    return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
  }

  extern "C" {
  f32 sinf(f32);
  f32 cosf(f32);
  f32 tanf(f32);
  f32 expf(f32);
  f32 exp2f(f32);
  f32 logf(f32);
  f32 log2f(f32);
  f32 powf(f32, f32);
  f32 fmodf(f32, f32);
  f32 tanhf(f32);
  f32 sinhf(f32);
  f32 coshf(f32);
  f32 asinf(f32);
  f32 acosf(f32);
  f32 atanf(f32);
  f32 erff(f32);
  f32 erfcf(f32);
  f32 log10f(f32);
  f32 log1pf(f32);
  f32 expm1f(f32);
  f32 atan2f(f32, f32);
  f32 hypotf(f32, f32);
  f64 sin(f64);
  f64 cos(f64);
  f64 tan(f64);
  f64 exp(f64);
  f64 exp2(f64);
  f64 log(f64);
  f64 log2(f64);
  f64 pow(f64, f64);
  f64 fmod(f64, f64);
  f64 tanh(f64);
  f64 sinh(f64);
  f64 cosh(f64);
  f64 asin(f64);
  f64 acos(f64);
  f64 atan(f64);
  f64 erf(f64);
  f64 erfc(f64);
  f64 log10(f64);
  f64 log1p(f64);
  f64 expm1(f64);
  f64 atan2(f64, f64);
  f64 hypot(f64, f64);
  }

  template <class T>
  struct wave_unsigned;
  template <>
  struct wave_unsigned<i32> {
    typedef u32 type;
  };
  template <>
  struct wave_unsigned<u32> {
    typedef u32 type;
  };
  template <>
  struct wave_unsigned<i64> {
    typedef u64 type;
  };
  template <>
  struct wave_unsigned<u64> {
    typedef u64 type;
  };
  template <class T>
  constexpr bool wave_is_float = false;
  template <>
  constexpr bool wave_is_float<f32> = true;
  template <>
  constexpr bool wave_is_float<f64> = true;
  template <class T>
  constexpr bool wave_is_int = false;
  template <>
  constexpr bool wave_is_int<i32> = true;
  template <>
  constexpr bool wave_is_int<u32> = true;
  template <>
  constexpr bool wave_is_int<i64> = true;
  template <>
  constexpr bool wave_is_int<u64> = true;

  template <class T>
  inline T wave_add(T a, T b) {
    if constexpr (wave_is_int<T>) {
      typedef typename wave_unsigned<T>::type U;
      return (T)((U)a + (U)b);
    } else
      return a + b;
  }
  template <class T>
  inline T wave_sub(T a, T b) {
    if constexpr (wave_is_int<T>) {
      typedef typename wave_unsigned<T>::type U;
      return (T)((U)a - (U)b);
    } else
      return a - b;
  }
  template <class T>
  inline T wave_mul(T a, T b) {
    if constexpr (wave_is_int<T>) {
      typedef typename wave_unsigned<T>::type U;
      return (T)((U)a * (U)b);
    } else
      return a * b;
  }
  template <class T>
  inline T wave_neg(T a) {
    if constexpr (wave_is_int<T>)
      return wave_sub((T)0, a);
    else
      return -a;
  }
  inline f32 wave_abs(f32 a) {
    return __builtin_fabsf(a);
  }
  inline f64 wave_abs(f64 a) {
    return __builtin_fabs(a);
  }
  template <class T>
  inline T wave_abs(T a) {
    if constexpr ((T)-1 < (T)0)
      return a < 0 ? wave_neg(a) : a;
    else
      return a;
  }
  template <class T>
  inline T wave_min(T a, T b) {
    return b < a ? b : a;
  }
  template <class T>
  inline T wave_max(T a, T b) {
    return a < b ? b : a;
  }
  template <class T>
  inline T wave_shl(T a, T b) {
    typedef typename wave_unsigned<T>::type U;
    return (T)((U)a << ((unsigned)b & (sizeof(T) * 8 - 1)));
  }
  template <class T>
  inline T wave_shr(T a, T b) {
    return (T)(a >> ((unsigned)b & (sizeof(T) * 8 - 1)));
  }

  inline f32 wave_floor(f32 x) {
    return __builtin_floorf(x);
  }
  inline f64 wave_floor(f64 x) {
    return __builtin_floor(x);
  }
  inline f32 wave_ceil(f32 x) {
    return __builtin_ceilf(x);
  }
  inline f64 wave_ceil(f64 x) {
    return __builtin_ceil(x);
  }
  inline f32 wave_trunc(f32 x) {
    return __builtin_truncf(x);
  }
  inline f64 wave_trunc(f64 x) {
    return __builtin_trunc(x);
  }
  inline f32 wave_sqrt(f32 x) {
    return __builtin_sqrtf(x);
  }
  inline f64 wave_sqrt(f64 x) {
    return __builtin_sqrt(x);
  }
  inline f32 wave_fma(f32 x, f32 y, f32 z) {
    return __builtin_fmaf(x, y, z);
  }
  inline f64 wave_fma(f64 x, f64 y, f64 z) {
    return __builtin_fma(x, y, z);
  }
  template <class T>
  inline T wave_fma(T x, T y, T z) {
    return wave_add(wave_mul(x, y), z);
  }
  inline f32 wave_copysign(f32 x, f32 y) {
    return __builtin_copysignf(x, y);
  }
  inline f64 wave_copysign(f64 x, f64 y) {
    return __builtin_copysign(x, y);
  }
  inline bool wave_isnan(f32 x) {
    return __builtin_isnan(x);
  }
  inline bool wave_isnan(f64 x) {
    return __builtin_isnan(x);
  }
  inline bool wave_isinf(f32 x) {
    return __builtin_isinf(x);
  }
  inline bool wave_isinf(f64 x) {
    return __builtin_isinf(x);
  }
  inline bool wave_isfinite(f32 x) {
    return __builtin_isfinite(x);
  }
  inline bool wave_isfinite(f64 x) {
    return __builtin_isfinite(x);
  }
  inline f32 wave_fmod(f32 a, f32 b) {
    return fmodf(a, b);
  }
  inline f64 wave_fmod(f64 a, f64 b) {
    return fmod(a, b);
  }
  inline f32 wave_pow(f32 a, f32 b) {
    return powf(a, b);
  }
  inline f64 wave_pow(f64 a, f64 b) {
    return pow(a, b);
  }
  // Python's float %: the sign of the divisor.
  template <class T>
  inline T wave_fmod_python(T a, T b) {
    T r = wave_fmod(a, b);
    if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
    return r;
  }
  template <class T>
  inline T wave_fdiv_floor(T a, T b) {
    return wave_floor(a / b);
  }

  // Integer /, // and % once the divisor is known non-zero: MIN / -1 wraps.
  template <class T>
  inline T wave_idiv(T x, T y, int kind) {  // kind 0: trunc, 1: floor, 2: mod
    if constexpr ((T)-1 < (T)0) {
      if (y == (T)-1) return kind == 2 ? (T)0 : wave_neg(x);
      T q = (T)(x / y);
      T r = (T)(x % y);
      if (kind != 0 && r != 0 && ((r < 0) != (y < 0))) {
        q = (T)(q - 1);
        r = (T)(r + y);
      }
      return kind == 2 ? r : q;
    } else {
      return kind == 2 ? (T)(x % y) : (T)(x / y);
    }
  }
  template <class T>
  inline T wave_ipow(T base, T exponent) {
    T result = 1;
    while (exponent != 0) {
      if ((exponent & 1) != 0) result = wave_mul(result, base);
      base = wave_mul(base, base);
      exponent = (T)(exponent >> 1);
    }
    return result;
  }

  template <class T>
  constexpr T wave_int_min() {
    if constexpr ((T)-1 > (T)0)
      return (T)0;
    else
      return (T)((typename wave_unsigned<T>::type)1 << (sizeof(T) * 8 - 1));
  }
  template <class T>
  constexpr T wave_int_max() {
    if constexpr ((T)-1 > (T)0)
      return (T) ~(T)0;
    else
      return (T)(((typename wave_unsigned<T>::type)1 << (sizeof(T) * 8 - 1)) - 1);
  }
  // Conversions: to bool is != 0; float -> integer saturates and NaN gives 0.
  template <class D, class S>
  inline D wave_cvt(S value) {
    if constexpr (__is_same(D, bool)) {
      return value != (S)0;
    } else if constexpr (wave_is_float<S> && wave_is_int<D>) {
      if (value != value) return (D)0;
      if (value <= (S)wave_int_min<D>()) return wave_int_min<D>();
      if (value >= (S)wave_int_max<D>()) return wave_int_max<D>();
      return (D)value;
    } else {
      return (D)value;
    }
  }

  template <class T>
  inline T wave_bits_to(u64 bits) {
    T value;
    __builtin_memcpy(&value, &bits, sizeof(T));
    return value;
  }

  // Atomics: the emulator's std::atomic_ref operations (floats and min/max as compare-and-swap
  // loops over the bits).
  template <class T>
  struct wave_bits_of {
    typedef u32 type;
  };
  template <>
  struct wave_bits_of<f64> {
    typedef u64 type;
  };
  template <>
  struct wave_bits_of<i64> {
    typedef u64 type;
  };
  template <>
  struct wave_bits_of<u64> {
    typedef u64 type;
  };
  template <class T, class F>
  inline T wave_atomic_update(T* cell, F update) {
    typedef typename wave_bits_of<T>::type B;
    B* bits = (B*)cell;
    B old_bits = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
    for (;;) {
      const T old = __builtin_bit_cast(T, old_bits);
      const T wanted = update(old);
      if (wanted == old || __atomic_compare_exchange_n(bits, &old_bits, __builtin_bit_cast(B, wanted), true,
                                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        return old;
      }
    }
  }
  template <class T>
  inline T wave_atomic_add(T* cell, T v) {
    if constexpr (wave_is_int<T>)
      return __atomic_fetch_add(cell, v, __ATOMIC_SEQ_CST);
    else {
      // Not the update helper: a float add that leaves the bits unchanged (x + 0) must still store.
      typedef typename wave_bits_of<T>::type B;
      B* bits = (B*)cell;
      B old_bits = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
      while (!__atomic_compare_exchange_n(bits, &old_bits, __builtin_bit_cast(B, __builtin_bit_cast(T, old_bits) + v),
                                          true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      }
      return __builtin_bit_cast(T, old_bits);
    }
  }
  template <class T>
  inline T wave_atomic_sub(T* cell, T v) {
    if constexpr (wave_is_int<T>)
      return __atomic_fetch_sub(cell, v, __ATOMIC_SEQ_CST);
    else
      return wave_atomic_add(cell, -v);
  }
  template <class T>
  inline T wave_atomic_min(T* cell, T v) {
    return wave_atomic_update(cell, [v](T old) { return v < old ? v : old; });
  }
  template <class T>
  inline T wave_atomic_max(T* cell, T v) {
    return wave_atomic_update(cell, [v](T old) { return old < v ? v : old; });
  }
  template <class T>
  inline T wave_atomic_and(T* cell, T v) {
    return __atomic_fetch_and(cell, v, __ATOMIC_SEQ_CST);
  }
  template <class T>
  inline T wave_atomic_or(T* cell, T v) {
    return __atomic_fetch_or(cell, v, __ATOMIC_SEQ_CST);
  }
  template <class T>
  inline T wave_atomic_xor(T* cell, T v) {
    return __atomic_fetch_xor(cell, v, __ATOMIC_SEQ_CST);
  }
  template <class T>
  inline T wave_atomic_exchange(T* cell, T v) {
    typedef typename wave_bits_of<T>::type B;
    return __builtin_bit_cast(T, __atomic_exchange_n((B*)cell, __builtin_bit_cast(B, v), __ATOMIC_SEQ_CST));
  }
  template <class T>
  inline T wave_atomic_cas(T* cell, T expected, T desired) {
    typedef typename wave_bits_of<T>::type B;
    B old = __builtin_bit_cast(B, expected);
    __atomic_compare_exchange_n((B*)cell, &old, __builtin_bit_cast(B, desired), false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return __builtin_bit_cast(T, old);
  }
)CPP";

}  // namespace

const std::string& cpu_preamble() {
  static const std::string text(kPreamble);
  return text;
}

}  // namespace wavestack::wave
