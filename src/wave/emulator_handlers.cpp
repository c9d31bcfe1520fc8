// Instruction handlers of the emulator: one template per operation, instantiated per type,
// each looping over the active lanes of a wave. Integer arithmetic wraps (two's complement)
// like GPU hardware; // and % follow Python's floor semantics, as the frontend promises.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "wave/emulator_internal.hpp"
#include "wave/errors.hpp"
#include "wave/half.hpp"

namespace wavestack::wave {
namespace {

template <class T>
constexpr bool kInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
constexpr bool kFloat = std::is_floating_point_v<T>;
template <class T>
constexpr bool kNumber = kInt<T> || kFloat<T>;

template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
T wrap_add(T a, T b) {
  if constexpr (kInt<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  } else {
    return a + b;
  }
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (kInt<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
  } else {
    return a - b;
  }
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (kInt<T>) {
    // uint32 * uint32 would promote to int on some platforms; go through uint64.
    return static_cast<T>(static_cast<uint64_t>(static_cast<Unsigned<T>>(a)) *
                          static_cast<uint64_t>(static_cast<Unsigned<T>>(b)));
  } else {
    return a * b;
  }
}
template <class T>
T wrap_neg(T a) {
  if constexpr (kFloat<T>) {
    return -a;  // flips the sign bit, as GLSL's and IEEE's negation do: 0 - a would give +0 for +0
  } else {
    return wrap_sub(T{0}, a);
  }
}

// ---- operation functors: apply(a, b) for binary, apply(a) for unary --------------------

struct AddOp {
  template <class T>
  static T apply(T a, T b) {
    return wrap_add(a, b);
  }
};
struct SubOp {
  template <class T>
  static T apply(T a, T b) {
    return wrap_sub(a, b);
  }
};
struct MulOp {
  template <class T>
  static T apply(T a, T b) {
    return wrap_mul(a, b);
  }
};
struct MinOp {
  template <class T>
  static T apply(T a, T b) {
    return b < a ? b : a;
  }
};
struct MaxOp {
  template <class T>
  static T apply(T a, T b) {
    return a < b ? b : a;
  }
};
struct BitAndOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a & b);
  }
};
struct BitOrOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a | b);
  }
};
struct BitXorOp {
  template <class T>
  static T apply(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};
struct ShlOp {
  template <class T>
  static T apply(T a, T b) {
    const auto count = static_cast<unsigned>(b) & (sizeof(T) * 8 - 1);
    return static_cast<T>(static_cast<Unsigned<T>>(a) << count);
  }
};
struct ShrOp {  // arithmetic for signed types, logical for unsigned
  template <class T>
  static T apply(T a, T b) {
    const auto count = static_cast<unsigned>(b) & (sizeof(T) * 8 - 1);
    return static_cast<T>(a >> count);
  }
};
struct LogicAndOp {
  template <class T>
  static T apply(T a, T b) {
    return a && b;
  }
};
struct LogicOrOp {
  template <class T>
  static T apply(T a, T b) {
    return a || b;
  }
};
struct FloatDivOp {
  template <class T>
  static T apply(T a, T b) {
    return a / b;
  }
};
struct FloatFloorDivOp {
  template <class T>
  static T apply(T a, T b) {
    return std::floor(a / b);
  }
};
struct FloatModOp {  // Python's float %: the result has the sign of the divisor
  template <class T>
  static T apply(T a, T b) {
    T r = std::fmod(a, b);
    if (r != T{0} && ((r < T{0}) != (b < T{0}))) r += b;
    return r;
  }
};
struct FloatPowOp {
  template <class T>
  static T apply(T a, T b) {
    return std::pow(a, b);
  }
};

struct EqOp {
  template <class T>
  static bool apply(T a, T b) {
    return a == b;
  }
};
struct NeOp {
  template <class T>
  static bool apply(T a, T b) {
    return a != b;
  }
};
struct LtOp {
  template <class T>
  static bool apply(T a, T b) {
    return a < b;
  }
};
struct LeOp {
  template <class T>
  static bool apply(T a, T b) {
    return a <= b;
  }
};
struct GtOp {
  template <class T>
  static bool apply(T a, T b) {
    return a > b;
  }
};
struct GeOp {
  template <class T>
  static bool apply(T a, T b) {
    return a >= b;
  }
};

#define WAVE_UNARY_FLOAT(Name, expr) \
  struct Name {                      \
    template <class T>               \
    static T apply(T x) {            \
      return expr;                   \
    }                                \
  };
WAVE_UNARY_FLOAT(SqrtOp, std::sqrt(x))
WAVE_UNARY_FLOAT(SinOp, std::sin(x))
WAVE_UNARY_FLOAT(CosOp, std::cos(x))
WAVE_UNARY_FLOAT(TanOp, std::tan(x))
WAVE_UNARY_FLOAT(ExpOp, std::exp(x))
WAVE_UNARY_FLOAT(Exp2Op, std::exp2(x))
WAVE_UNARY_FLOAT(LogOp, std::log(x))
WAVE_UNARY_FLOAT(Log2Op, std::log2(x))
WAVE_UNARY_FLOAT(FloorOp, std::floor(x))
WAVE_UNARY_FLOAT(CeilOp, std::ceil(x))
#undef WAVE_UNARY_FLOAT

struct NegOp {
  template <class T>
  static T apply(T x) {
    return wrap_neg(x);
  }
};
struct AbsOp {
  template <class T>
  static T apply(T x) {
    if constexpr (kFloat<T>) {
      return std::fabs(x);
    } else if constexpr (std::is_signed_v<T>) {
      return x < 0 ? wrap_neg(x) : x;
    } else {
      return x;
    }
  }
};
struct NotOp {
  template <class T>
  static T apply(T x) {
    return !x;
  }
};
struct BitNotOp {
  template <class T>
  static T apply(T x) {
    return static_cast<T>(~x);
  }
};
struct MovOp {
  template <class T>
  static T apply(T x) {
    return x;
  }
};

// ---- generic handlers --------------------------------------------------------------------

template <class T, class Op>
void h_unary(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  each_lane(w, [&](uint32_t l) { d[l] = Op::apply(a[l]); });
}

template <class T, class Op>
void h_binary(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const T* b = lanes<T>(w, in.b);
  each_lane(w, [&](uint32_t l) { d[l] = Op::apply(a[l], b[l]); });
}

template <class T, class Op>
void h_compare(WaveCtx& w, const LInstr& in) {
  bool* d = lanes<bool>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const T* b = lanes<T>(w, in.b);
  each_lane(w, [&](uint32_t l) { d[l] = Op::apply(a[l], b[l]); });
}

template <class T>
void h_const(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T value = get<T>(in.imm);
  each_lane(w, [&](uint32_t l) { d[l] = value; });
}

template <class T>
void h_select(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const bool* c = lanes<bool>(w, in.a);
  const T* x = lanes<T>(w, in.b);
  const T* y = lanes<T>(w, in.c);
  each_lane(w, [&](uint32_t l) { d[l] = c[l] ? x[l] : y[l]; });
}

template <class T>
void h_fma(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* x = lanes<T>(w, in.a);
  const T* y = lanes<T>(w, in.b);
  const T* z = lanes<T>(w, in.c);
  each_lane(w, [&](uint32_t l) {
    if constexpr (kFloat<T>) {
      d[l] = std::fma(x[l], y[l], z[l]);
    } else {
      d[l] = wrap_add(wrap_mul(x[l], y[l]), z[l]);
    }
  });
}

// Conversions saturate float -> integer (NaN gives 0) so no input is undefined behaviour.
template <class D, class S>
D convert(S value) {
  if constexpr (std::is_same_v<D, bool>) {
    return value != S{};
  } else if constexpr (kFloat<S> && kInt<D>) {
    if (std::isnan(value)) return D{0};
    if (value <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (value >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(value);
  } else {
    return static_cast<D>(value);
  }
}

template <class D, class S>
void h_cvt(WaveCtx& w, const LInstr& in) {
  D* d = lanes<D>(w, in.dst);
  const S* a = lanes<S>(w, in.a);
  each_lane(w, [&](uint32_t l) { d[l] = convert<D>(a[l]); });
}

// Integer /, // and %: division by zero is a fault; MIN / -1 wraps like the hardware.
enum class IntDiv { Trunc, Floor, Mod };

template <class T, IntDiv kind>
void h_int_div(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const T* b = lanes<T>(w, in.b);
  each_lane(w, [&](uint32_t l) {
    const T x = a[l];
    const T y = b[l];
    if (y == 0) [[unlikely]]
      fault(w, in.line, l, "integer division by zero");
    T result;
    if constexpr (std::is_signed_v<T>) {
      if (y == -1) {
        result = kind == IntDiv::Mod ? T{0} : wrap_neg(x);
      } else {
        T q = static_cast<T>(x / y);
        T r = static_cast<T>(x % y);
        if (kind != IntDiv::Trunc && r != 0 && ((r < 0) != (y < 0))) {
          q = static_cast<T>(q - 1);
          r = static_cast<T>(r + y);
        }
        result = kind == IntDiv::Mod ? r : q;
      }
    } else {
      result = kind == IntDiv::Mod ? static_cast<T>(x % y) : static_cast<T>(x / y);
    }
    d[l] = result;
  });
}

template <class T>
void h_int_pow(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const T* b = lanes<T>(w, in.b);
  each_lane(w, [&](uint32_t l) {
    T base = a[l];
    T exponent = b[l];
    if constexpr (std::is_signed_v<T>) {
      if (exponent < 0) fault(w, in.line, l, "negative integer exponent " + std::to_string(exponent));
    }
    T result = 1;
    while (exponent != 0) {
      if ((exponent & 1) != 0) result = wrap_mul(result, base);
      base = wrap_mul(base, base);
      exponent = static_cast<T>(exponent >> 1);
    }
    d[l] = result;
  });
}

// ---- launch geometry ---------------------------------------------------------------------

inline uint32_t local_index(const WaveCtx& w, uint32_t lane) {
  return w.wave_index * w.width + lane;
}
inline uint32_t local_coordinate(const WaveCtx& w, uint32_t lane, uint32_t dim) {
  const uint32_t linear = local_index(w, lane);
  const auto* size = w.geo->workgroup;
  if (dim == 0) return w.geo->one_dimensional ? linear : linear % size[0];
  if (dim == 1) return (linear / size[0]) % size[1];
  return linear / (size[0] * size[1]);
}

// base + local coordinate along in.dim; along x in a 1-D workgroup the coordinate is the
// linear index, a plain ramp the compiler vectorises.
void geometry_ramp(WaveCtx& w, const LInstr& in, uint32_t base) {
  int32_t* d = lanes<int32_t>(w, in.dst);
  if (in.dim == 0 && w.geo->one_dimensional) {
    const uint32_t first = base + w.wave_index * w.width;
    each_lane(w, [&](uint32_t l) { d[l] = static_cast<int32_t>(first + l); });
  } else {
    each_lane(w, [&](uint32_t l) { d[l] = static_cast<int32_t>(base + local_coordinate(w, l, in.dim)); });
  }
}
void h_local_id(WaveCtx& w, const LInstr& in) {
  geometry_ramp(w, in, 0);
}
void h_thread_id(WaveCtx& w, const LInstr& in) {
  geometry_ramp(w, in, w.group[in.dim] * w.geo->workgroup[in.dim]);
}
void h_lane_id(WaveCtx& w, const LInstr& in) {
  int32_t* d = lanes<int32_t>(w, in.dst);
  each_lane(w, [&](uint32_t l) { d[l] = static_cast<int32_t>(l); });
}
// Geometry values that are uniform over the wave.
void h_uniform_i32(WaveCtx& w, const LInstr& in, uint32_t value) {
  int32_t* d = lanes<int32_t>(w, in.dst);
  each_lane(w, [&](uint32_t l) { d[l] = static_cast<int32_t>(value); });
}
void h_workgroup_id(WaveCtx& w, const LInstr& in) {
  h_uniform_i32(w, in, w.group[in.dim]);
}
void h_workgroup_size(WaveCtx& w, const LInstr& in) {
  h_uniform_i32(w, in, w.geo->workgroup[in.dim]);
}
void h_num_workgroups(WaveCtx& w, const LInstr& in) {
  h_uniform_i32(w, in, w.geo->grid[in.dim]);
}
void h_wave_width(WaveCtx& w, const LInstr& in) {
  h_uniform_i32(w, in, w.width);
}
void h_length(WaveCtx& w, const LInstr& in) {
  h_uniform_i32(w, in, static_cast<uint32_t>(std::min<int64_t>(w.mems[in.mem].length, INT32_MAX)));
}

// ---- memory ------------------------------------------------------------------------------

[[noreturn]] void out_of_bounds(const WaveCtx& w, const LInstr& in, uint32_t lane, int64_t index, bool negative_ok) {
  const auto kind = in.ref.kind == MemRef::Kind::Buffer ? "buffer '" : "shared array '";
  const std::string shown = negative_ok ? std::to_string(index) : std::to_string(static_cast<uint64_t>(index));
  fault(w, in.line, lane,
        "index " + shown + " is out of bounds of " + kind + std::string(w.module->mem_name(in.ref)) + "' (length " +
            std::to_string(w.mems[in.mem].length) + ")");
}

template <class I>
inline int64_t checked_index(const WaveCtx& w, const LInstr& in, I raw, uint32_t lane) {
  const auto i = static_cast<int64_t>(raw);
  if (i < 0 || i >= w.mems[in.mem].length) [[unlikely]] {
    out_of_bounds(w, in, lane, i, std::is_signed_v<I>);
  }
  return i;
}

// E: the element type in memory (uint16_t for f16); T: the register type.
template <class E, class T>
inline T load_element(const std::byte* base, int64_t i) {
  if constexpr (std::is_same_v<E, uint16_t>) {
    return half_to_float(reinterpret_cast<const uint16_t*>(base)[i]);
  } else {
    return reinterpret_cast<const E*>(base)[i];
  }
}

// Loads and stores check every active lane's index first (one vectorisable pass), then
// move the data; a fault names the first lane out of bounds.
template <class I>
inline void check_indices(const WaveCtx& w, const LInstr& in, const I* idx) {
  // One unsigned comparison per lane catches negative indices too.
  const auto length = static_cast<uint64_t>(w.mems[in.mem].length);
  uint32_t bad = 0;
  if (sizeof(I) == 4 && w.active == w.all_lanes && length <= (uint64_t{1} << 31)) {
    // 32-bit indices against a length below 2^31: negative ones wrap to >= 2^31 > length.
    const auto limit = static_cast<uint32_t>(length);
    const uint32_t width = w.width;
    for (uint32_t l = 0; l < width; ++l) bad |= static_cast<uint32_t>(static_cast<uint32_t>(idx[l]) >= limit);
  } else if (w.active == w.all_lanes) {
    const uint32_t width = w.width;
    for (uint32_t l = 0; l < width; ++l) {
      bad |= static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(idx[l])) >= length);
    }
  } else {
    each_lane(w, [&](uint32_t l) {
      bad |= static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(idx[l])) >= length);
    });
  }
  if (bad != 0) [[unlikely]] {
    each_lane(w, [&](uint32_t l) { (void)checked_index<I>(w, in, idx[l], l); });
  }
}

template <class E, class T, class I>
void h_load(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const I* idx = lanes<I>(w, in.a);
  check_indices(w, in, idx);
  const std::byte* base = w.mems[in.mem].data;
  each_lane(w, [&](uint32_t l) { d[l] = load_element<E, T>(base, static_cast<int64_t>(idx[l])); });
}

template <class E, class T, class I>
void h_store(WaveCtx& w, const LInstr& in) {
  const I* idx = lanes<I>(w, in.a);
  const T* v = lanes<T>(w, in.b);
  check_indices(w, in, idx);
  std::byte* base = w.mems[in.mem].data;
  each_lane(w, [&](uint32_t l) {
    const auto i = static_cast<int64_t>(idx[l]);
    if constexpr (std::is_same_v<E, uint16_t>) {
      reinterpret_cast<uint16_t*>(base)[i] = float_to_half(v[l]);
    } else {
      reinterpret_cast<E*>(base)[i] = v[l];
    }
  });
}

// Atomics are real atomics (other workgroups run on other threads at the same time).
template <class T, Opcode op, class I>
void h_atomic(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const I* idx = lanes<I>(w, in.a);
  const T* v = lanes<T>(w, in.b);
  const T* v2 = lanes<T>(w, in.c == kNoReg ? in.b : in.c);
  T* base = reinterpret_cast<T*>(w.mems[in.mem].data);
  each_lane(w, [&](uint32_t l) {
    std::atomic_ref<T> cell(base[checked_index<I>(w, in, idx[l], l)]);
    const T value = v[l];
    T old{};
    if constexpr (op == Opcode::AtomicExchange) {
      old = cell.exchange(value);
    } else if constexpr (op == Opcode::AtomicCas) {
      old = value;  // expected; replaced by the current value when the exchange fails
      cell.compare_exchange_strong(old, v2[l]);
    } else if constexpr (kFloat<T> && (op == Opcode::AtomicAdd || op == Opcode::AtomicSub)) {
      old = op == Opcode::AtomicAdd ? cell.fetch_add(value) : cell.fetch_sub(value);
    } else if constexpr (kInt<T> && op == Opcode::AtomicAdd) {
      old = cell.fetch_add(value);
    } else if constexpr (kInt<T> && op == Opcode::AtomicSub) {
      old = cell.fetch_sub(value);
    } else if constexpr (kInt<T> && op == Opcode::AtomicAnd) {
      old = cell.fetch_and(value);
    } else if constexpr (kInt<T> && op == Opcode::AtomicOr) {
      old = cell.fetch_or(value);
    } else if constexpr (kInt<T> && op == Opcode::AtomicXor) {
      old = cell.fetch_xor(value);
    } else {  // min / max: a compare-exchange loop
      old = cell.load();
      for (;;) {
        const T wanted = op == Opcode::AtomicMin ? (value < old ? value : old) : (old < value ? value : old);
        if (wanted == old || cell.compare_exchange_weak(old, wanted)) break;
      }
    }
    d[l] = old;
  });
}

// ---- wave operations ---------------------------------------------------------------------

template <class T, Opcode op>
T combine(T a, T b) {
  if constexpr (op == Opcode::WaveSum) {
    return wrap_add(a, b);
  } else if constexpr (op == Opcode::WaveMin) {
    return MinOp::apply(a, b);
  } else {
    return MaxOp::apply(a, b);
  }
}

template <class T, Opcode op>
void h_wave_reduce(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  T values[64];
  each_lane(w, [&](uint32_t l) { values[l] = a[l]; });
  if constexpr (op == Opcode::WavePrefixSum) {  // exclusive, in lane order (HLSL WavePrefixSum)
    T running{0};
    each_lane(w, [&](uint32_t l) {
      d[l] = running;
      running = wrap_add(running, values[l]);
    });
  } else {
    bool first = true;
    T total{};
    each_lane(w, [&](uint32_t l) {
      total = first ? values[l] : combine<T, op>(total, values[l]);
      first = false;
    });
    each_lane(w, [&](uint32_t l) { d[l] = total; });
  }
}

template <Opcode op>
void h_wave_vote(WaveCtx& w, const LInstr& in) {
  const bool* a = lanes<bool>(w, in.a);
  uint64_t ballot = 0;
  each_lane(w, [&](uint32_t l) {
    if (a[l]) ballot |= uint64_t{1} << l;
  });
  if constexpr (op == Opcode::WaveBallot) {
    uint64_t* d = lanes<uint64_t>(w, in.dst);
    each_lane(w, [&](uint32_t l) { d[l] = ballot; });
  } else {
    bool* d = lanes<bool>(w, in.dst);
    const bool result = op == Opcode::WaveAny ? ballot != 0 : ballot == w.active;
    each_lane(w, [&](uint32_t l) { d[l] = result; });
  }
}

// wave_broadcast and wave_shuffle: read another lane's value; that lane must be active.
template <class T, class I>
void h_wave_read(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const I* src = lanes<I>(w, in.b);
  T values[64];
  for (uint32_t l = 0; l < w.width; ++l) values[l] = a[l];
  each_lane(w, [&](uint32_t l) {
    const auto from = static_cast<int64_t>(src[l]);
    if (from < 0 || from >= static_cast<int64_t>(w.width) || ((w.active >> from) & 1U) == 0) [[unlikely]] {
      fault(w, in.line, l, "reads lane " + std::to_string(from) + ", which is not an active lane of the wave");
    }
    d[l] = values[from];
  });
}

// ---- selection ---------------------------------------------------------------------------

template <class Op>
Handler number_binary(ScalarType type) {
  return visit_register_type(type, []<class T>() -> Handler {
    if constexpr (kNumber<T>) return &h_binary<T, Op>;
    return nullptr;
  });
}
template <class Op, bool kAllowBool>
Handler int_binary(ScalarType type) {
  return visit_register_type(type, []<class T>() -> Handler {
    if constexpr (kInt<T> || (kAllowBool && std::is_same_v<T, bool>)) return &h_binary<T, Op>;
    return nullptr;
  });
}
template <class Op>
Handler compare(ScalarType type, bool allow_bool) {
  return visit_register_type(type, [allow_bool]<class T>() -> Handler {
    if constexpr (std::is_same_v<T, bool>) return allow_bool ? &h_compare<bool, Op> : nullptr;
    return &h_compare<T, Op>;
  });
}
template <class Op>
Handler float_unary(ScalarType type) {
  return visit_register_type(type, []<class T>() -> Handler {
    if constexpr (kFloat<T>) return &h_unary<T, Op>;
    return nullptr;
  });
}
template <IntDiv kind, class FloatOp>
Handler division(ScalarType type) {
  return visit_register_type(type, []<class T>() -> Handler {
    if constexpr (kInt<T>) return &h_int_div<T, kind>;
    if constexpr (kFloat<T>) return &h_binary<T, FloatOp>;
    return nullptr;
  });
}

// Calls visitor.template operator()<I>() for an integer index type.
template <class Visitor>
Handler with_index(ScalarType type, Visitor&& visitor) {
  switch (type) {
    case ScalarType::I32:
      return visitor.template operator()<int32_t>();
    case ScalarType::U32:
      return visitor.template operator()<uint32_t>();
    case ScalarType::I64:
      return visitor.template operator()<int64_t>();
    case ScalarType::U64:
      return visitor.template operator()<uint64_t>();
    default:
      return nullptr;
  }
}

Handler memory(ScalarType element, ScalarType index, bool load) {
  if (element == ScalarType::F16) {
    return with_index(index, [load]<class I>() -> Handler {
      return load ? &h_load<uint16_t, float, I> : &h_store<uint16_t, float, I>;
    });
  }
  return visit_register_type(element, [&]<class T>() -> Handler {
    return with_index(index, [load]<class I>() -> Handler { return load ? &h_load<T, T, I> : &h_store<T, T, I>; });
  });
}

template <Opcode op>
Handler atomic(ScalarType element, ScalarType index) {
  return visit_register_type(element, [&]<class T>() -> Handler {
    if constexpr (kNumber<T>) {
      return with_index(index, []<class I>() -> Handler { return &h_atomic<T, op, I>; });
    }
    return nullptr;
  });
}

template <Opcode op>
Handler wave_reduce(ScalarType type) {
  return visit_register_type(type, []<class T>() -> Handler {
    if constexpr (kNumber<T>) return &h_wave_reduce<T, op>;
    return nullptr;
  });
}

Handler select_unary(const Module& m, const Stmt& s) {
  const ScalarType t = m.registers[s.dst];
  switch (s.op) {
    case Opcode::Mov:
      return visit_register_type(t, []<class T>() -> Handler { return &h_unary<T, MovOp>; });
    case Opcode::Cvt: {
      const ScalarType from = m.registers[s.args[0]];
      return visit_register_type(t, [from]<class D>() -> Handler {
        return visit_register_type(from, []<class S>() -> Handler { return &h_cvt<D, S>; });
      });
    }
    case Opcode::Neg:
      return visit_register_type(t, []<class T>() -> Handler {
        if constexpr (kNumber<T>) return &h_unary<T, NegOp>;
        return nullptr;
      });
    case Opcode::Abs:
      return visit_register_type(t, []<class T>() -> Handler {
        if constexpr (kNumber<T>) return &h_unary<T, AbsOp>;
        return nullptr;
      });
    case Opcode::Not:
      return &h_unary<bool, NotOp>;
    case Opcode::BitNot:
      return visit_register_type(t, []<class T>() -> Handler {
        if constexpr (kInt<T>) return &h_unary<T, BitNotOp>;
        return nullptr;
      });
    case Opcode::Sqrt:
      return float_unary<SqrtOp>(t);
    case Opcode::Sin:
      return float_unary<SinOp>(t);
    case Opcode::Cos:
      return float_unary<CosOp>(t);
    case Opcode::Tan:
      return float_unary<TanOp>(t);
    case Opcode::Exp:
      return float_unary<ExpOp>(t);
    case Opcode::Exp2:
      return float_unary<Exp2Op>(t);
    case Opcode::Log:
      return float_unary<LogOp>(t);
    case Opcode::Log2:
      return float_unary<Log2Op>(t);
    case Opcode::Floor:
      return float_unary<FloorOp>(t);
    case Opcode::Ceil:
      return float_unary<CeilOp>(t);
    default:
      return nullptr;
  }
}

Handler select_binary(const Stmt& s, ScalarType t) {
  switch (s.op) {
    case Opcode::Add:
      return number_binary<AddOp>(t);
    case Opcode::Sub:
      return number_binary<SubOp>(t);
    case Opcode::Mul:
      return number_binary<MulOp>(t);
    case Opcode::Min:
      return number_binary<MinOp>(t);
    case Opcode::Max:
      return number_binary<MaxOp>(t);
    case Opcode::Div:
      return division<IntDiv::Trunc, FloatDivOp>(t);
    case Opcode::FloorDiv:
      return division<IntDiv::Floor, FloatFloorDivOp>(t);
    case Opcode::Mod:
      return division<IntDiv::Mod, FloatModOp>(t);
    case Opcode::Pow:
      return visit_register_type(t, []<class T>() -> Handler {
        if constexpr (kInt<T>) return &h_int_pow<T>;
        if constexpr (kFloat<T>) return &h_binary<T, FloatPowOp>;
        return nullptr;
      });
    case Opcode::BitAnd:
      return int_binary<BitAndOp, true>(t);
    case Opcode::BitOr:
      return int_binary<BitOrOp, true>(t);
    case Opcode::BitXor:
      return int_binary<BitXorOp, true>(t);
    case Opcode::Shl:
      return int_binary<ShlOp, false>(t);
    case Opcode::Shr:
      return int_binary<ShrOp, false>(t);
    case Opcode::LogicAnd:
      return &h_binary<bool, LogicAndOp>;
    case Opcode::LogicOr:
      return &h_binary<bool, LogicOrOp>;
    default:
      return nullptr;
  }
}

Handler select_compare(const Stmt& s, ScalarType t) {
  switch (s.op) {
    case Opcode::Eq:
      return compare<EqOp>(t, true);
    case Opcode::Ne:
      return compare<NeOp>(t, true);
    case Opcode::Lt:
      return compare<LtOp>(t, false);
    case Opcode::Le:
      return compare<LeOp>(t, false);
    case Opcode::Gt:
      return compare<GtOp>(t, false);
    case Opcode::Ge:
      return compare<GeOp>(t, false);
    default:
      return nullptr;
  }
}

Handler select_geometry(const Stmt& s) {
  switch (s.op) {
    case Opcode::ThreadId:
      return &h_thread_id;
    case Opcode::LocalId:
      return &h_local_id;
    case Opcode::WorkgroupId:
      return &h_workgroup_id;
    case Opcode::WorkgroupSize:
      return &h_workgroup_size;
    case Opcode::NumWorkgroups:
      return &h_num_workgroups;
    case Opcode::LaneId:
      return &h_lane_id;
    case Opcode::WaveWidth:
      return &h_wave_width;
    case Opcode::Length:
      return &h_length;
    default:
      return nullptr;
  }
}

Handler select_atomic(const Stmt& s, ScalarType element, ScalarType index) {
  switch (s.op) {
    case Opcode::AtomicAdd:
      return atomic<Opcode::AtomicAdd>(element, index);
    case Opcode::AtomicSub:
      return atomic<Opcode::AtomicSub>(element, index);
    case Opcode::AtomicMin:
      return atomic<Opcode::AtomicMin>(element, index);
    case Opcode::AtomicMax:
      return atomic<Opcode::AtomicMax>(element, index);
    case Opcode::AtomicAnd:
      return atomic<Opcode::AtomicAnd>(element, index);
    case Opcode::AtomicOr:
      return atomic<Opcode::AtomicOr>(element, index);
    case Opcode::AtomicXor:
      return atomic<Opcode::AtomicXor>(element, index);
    case Opcode::AtomicExchange:
      return atomic<Opcode::AtomicExchange>(element, index);
    case Opcode::AtomicCas:
      return atomic<Opcode::AtomicCas>(element, index);
    default:
      return nullptr;
  }
}

Handler select_wave(const Module& m, const Stmt& s) {
  const ScalarType t = m.registers[s.dst];
  switch (s.op) {
    case Opcode::WaveSum:
      return wave_reduce<Opcode::WaveSum>(t);
    case Opcode::WaveMin:
      return wave_reduce<Opcode::WaveMin>(t);
    case Opcode::WaveMax:
      return wave_reduce<Opcode::WaveMax>(t);
    case Opcode::WavePrefixSum:
      return wave_reduce<Opcode::WavePrefixSum>(t);
    case Opcode::WaveAny:
      return &h_wave_vote<Opcode::WaveAny>;
    case Opcode::WaveAll:
      return &h_wave_vote<Opcode::WaveAll>;
    case Opcode::WaveBallot:
      return &h_wave_vote<Opcode::WaveBallot>;
    case Opcode::WaveBroadcast:
    case Opcode::WaveShuffle: {
      const ScalarType index = m.registers[s.args[1]];
      return visit_register_type(t, [index]<class T>() -> Handler {
        return with_index(index, []<class I>() -> Handler { return &h_wave_read<T, I>; });
      });
    }
    default:
      return nullptr;
  }
}

}  // namespace

Handler select_handler(const Module& m, const Stmt& s) {
  Handler handler = nullptr;
  switch (op_info(s.op).op_class) {
    case OpClass::Const:
      handler = visit_register_type(m.registers[s.dst], []<class T>() -> Handler { return &h_const<T>; });
      break;
    case OpClass::Unary:
      handler = select_unary(m, s);
      break;
    case OpClass::Binary:
      handler = select_binary(s, m.registers[s.dst]);
      break;
    case OpClass::Compare:
      handler = select_compare(s, m.registers[s.args[0]]);
      break;
    case OpClass::Ternary:
      handler = visit_register_type(m.registers[s.dst], [&]<class T>() -> Handler {
        if (s.op == Opcode::Select) return &h_select<T>;
        if (s.op == Opcode::CheckIndex) return select_check_index(m.registers[s.dst]);
        if constexpr (kNumber<T>) return &h_fma<T>;
        return nullptr;
      });
      break;
    case OpClass::Geometry:
      handler = select_geometry(s);
      break;
    case OpClass::Memory:
      handler = memory(m.mem_element(s.mem), m.registers[s.args[0]], s.op == Opcode::Load);
      break;
    case OpClass::Atomic:
      handler = select_atomic(s, m.mem_element(s.mem), m.registers[s.args[0]]);
      break;
    case OpClass::Wave:
      handler = select_wave(m, s);
      break;
    case OpClass::Control:
      break;
  }
  if (handler == nullptr) handler = select_math_extra(m, s);  // tanh ... copysign (emulator_math.cpp)
  if (handler == nullptr) {
    throw IrError("the emulator has no implementation of " + std::string(op_info(s.op).name) + " for these types");
  }
  return handler;
}

}  // namespace wavestack::wave
