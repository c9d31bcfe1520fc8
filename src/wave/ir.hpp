// The WAVE IR: a typed, register-based kernel with structured control flow.
//
// A Module is one kernel. Its parameters are buffers (typed storage bound by the caller) and
// scalars (a value in a register, uniform over the launch); shared arrays live in workgroup
// memory. The body is a tree of statements: plain instructions plus If (then/else blocks)
// and Loop (body/continuing blocks), so GLSL can be emitted without a structuriser.
// Registers are mutable and typed: every write of a register has the register's type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wave/types.hpp"

namespace wavestack::wave {

using Reg = uint32_t;
inline constexpr Reg kNoReg = 0xFFFFFFFFU;

enum class Opcode : uint8_t {
  // values
  Const,
  Mov,
  Cvt,
  Select,
  // unary
  Neg,
  Not,
  BitNot,
  Abs,
  Sqrt,
  Sin,
  Cos,
  Tan,
  Exp,
  Exp2,
  Log,
  Log2,
  Floor,
  Ceil,
  // binary, result of the operand type
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  Min,
  Max,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  LogicAnd,
  LogicOr,
  // comparisons, result bool
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  // ternary
  Fma,
  // index, size, dimension (one integer type) -> the index; faults unless 0 <= index < size
  CheckIndex,
  // ---- math functions beyond GLSL's built-ins (emulator_math.cpp, glsl_math_extra.cpp); kept
  // contiguous from Tanh to Copysign: Emitter::is_math_extra tests the range ----
  Tanh,
  Sinh,
  Cosh,
  Asin,
  Acos,
  Atan,
  Erf,
  Erfc,
  Log10,
  Log1p,
  Expm1,
  Trunc,
  IsNan,     // float -> bool
  IsInf,     // float -> bool
  IsFinite,  // float -> bool
  Atan2,     // atan2(y, x)
  Hypot,
  Fmod,  // C's fmod: the sign of the dividend (Mod is Python's %)
  Copysign,
  // ---- end of math functions ----
  // launch geometry (dim operand 0..2 where it applies)
  ThreadId,
  LocalId,
  WorkgroupId,
  WorkgroupSize,
  NumWorkgroups,
  LaneId,
  WaveWidth,
  Length,
  // memory: buffers and shared arrays alike, named by MemRef
  Load,
  Store,
  AtomicAdd,
  AtomicSub,
  AtomicMin,
  AtomicMax,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicExchange,
  AtomicCas,
  // wave operations over the active lanes
  WaveBroadcast,
  WaveShuffle,
  WaveSum,
  WaveMin,
  WaveMax,
  WavePrefixSum,
  WaveAny,
  WaveAll,
  WaveBallot,
  Barrier,
  // structured control flow
  If,
  Loop,
  Break,
  Continue,
  Return,
};

enum class OpClass : uint8_t {
  Const,
  Unary,
  Binary,
  Compare,
  Ternary,
  Geometry,
  Memory,
  Atomic,
  Wave,
  Control,
};

struct OpInfo {
  std::string_view name;
  OpClass op_class;
  uint8_t operands;  // register operands (Store: index and value; Load: index)
};

[[nodiscard]] const OpInfo& op_info(Opcode op) noexcept;
[[nodiscard]] std::optional<Opcode> opcode_from_name(std::string_view name) noexcept;

// A buffer or shared array operand of a memory instruction.
struct MemRef {
  enum class Kind : uint8_t { Buffer, Shared };
  Kind kind = Kind::Buffer;
  uint32_t index = 0;
};

struct Stmt {
  Opcode op = Opcode::Const;
  Reg dst = kNoReg;
  Reg args[3] = {kNoReg, kNoReg, kNoReg};
  MemRef mem;               // Load, Store, atomics, Length
  uint32_t dim = 0;         // geometry dimension
  Value imm{};              // Const, read through the type of dst
  uint32_t line = 0;        // kernel source line (0: unknown)
  std::vector<Stmt> body;   // If: then block; Loop: body
  std::vector<Stmt> other;  // If: else block; Loop: continuing block
};

struct BufferDecl {
  std::string name;
  ScalarType element;
};

struct ScalarDecl {
  std::string name;
  ScalarType type;
  Reg reg;  // holds the argument's value in every lane
};

struct SharedDecl {
  std::string name;
  ScalarType element;
  uint32_t count;
};

struct Param {
  enum class Kind : uint8_t { Buffer, Scalar };
  Kind kind;
  uint32_t index;  // into buffers or scalars
};

struct Module {
  std::string name;
  std::vector<Param> params;
  std::vector<BufferDecl> buffers;
  std::vector<ScalarDecl> scalars;
  std::vector<SharedDecl> shared;
  std::vector<ScalarType> registers;  // type of each register
  std::vector<Stmt> body;

  [[nodiscard]] std::string_view mem_name(MemRef ref) const {
    return ref.kind == MemRef::Kind::Buffer ? buffers[ref.index].name : shared[ref.index].name;
  }
  [[nodiscard]] ScalarType mem_element(MemRef ref) const {
    return ref.kind == MemRef::Kind::Buffer ? buffers[ref.index].element : shared[ref.index].element;
  }
  // Finds a buffer or shared array by name.
  [[nodiscard]] std::optional<MemRef> find_mem(std::string_view name) const;
};

}  // namespace wavestack::wave
