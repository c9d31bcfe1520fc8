// The GLSL emitter's translator class, shared by its source files: glsl_emitter.cpp (feature
// checks, declarations, statements and control flow), glsl_expressions.cpp (values),
// glsl_memory.cpp (loads, stores, atomics, fault checks) and glsl_wave.cpp (wave operations).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "wave/glsl_emitter.hpp"
#include "wave/glsl_helpers.hpp"

namespace wavestack::wave::glsl_detail {

using glsl::glsl_type;

inline bool is_64bit(ScalarType t) {
  return t == ScalarType::I64 || t == ScalarType::U64;
}

// An upper bound c + k[d] * (workgroup size d - 1), every term >= 0, of a register whose
// values are all >= 0 (glsl_memory.cpp: shared-memory indices proven in range).
struct IndexBound {
  int64_t c = 0;
  std::array<int64_t, 3> k{};
};

class Emitter {
 public:
  Emitter(const Module& m, const GlslTarget& target) : m_(m), target_(target) {}

  GlslShader run();

 private:
  // ---- feature checks ------------------------------------------------------------------

  [[noreturn]] void missing(const std::string& what, const std::string& feature) const;
  void need(bool available, const std::string& what, const std::string& feature) const;

  void scan_types();

  // Which buffers are written, and which memories need a uint view for float atomics.
  void scan_memory_use(const std::vector<Stmt>& stmts);
  bool native_float_add(const Stmt& s) const;
  static uint32_t key(MemRef ref) { return (ref.kind == MemRef::Kind::Buffer ? 0U : 0x10000U) + ref.index; }

  void layout_push_constants();

  // ---- shader text -----------------------------------------------------------------------

  std::string header() const;
  std::string float_controls() const;

  std::string buffer_element(ScalarType e) const { return e == ScalarType::F16 ? "uint16_t" : glsl_type(e); }

  std::string declarations() const;

  // The unsigned integer type holding a float's bits (CAS loops work on bits).
  static std::string bits_type(ScalarType e) { return e == ScalarType::F64 ? "uint64_t" : "uint"; }
  static std::string to_bits(ScalarType e, const std::string& x);
  static std::string from_bits(ScalarType e, const std::string& x);

  // Shared f16 holds the half's bits in a uint; float arrays with CAS-loop atomics hold bits too.
  std::string shared_storage(uint32_t index) const;
  bool shared_bits(MemRef ref) const;

  std::string helpers() const;

  std::string prologue() const;

  // ---- helpers used by statements ---------------------------------------------------------

  void add_helper(const std::string& name, const std::string& text);

  static std::string r(Reg reg) { return "r" + std::to_string(reg); }
  ScalarType type_of(Reg reg) const { return m_.registers[reg]; }

  void need_subgroup(const Stmt& s, bool ballot, bool shuffle, bool arithmetic);

  std::string convert(ScalarType to, ScalarType from, const std::string& x);

  // A float function GLSL has for f32 only: f64 goes to the helpers of glsl_f64_math.cpp.
  std::string float_call(const std::string& fn, ScalarType t, const std::string& x);

  std::string unary(const Stmt& s);

  // GLSL's f32 division may be off by 2.5 ulp; through f64 (where the device has it) it is
  // correctly rounded like the emulator's, so integer results derived from quotients agree.
  std::string float_quotient(ScalarType t, const std::string& a, const std::string& b) const;

  std::string binary(const Stmt& s);

  std::string compare(const Stmt& s);

  // Math functions beyond GLSL's built-ins (tanh ... copysign): glsl_math_extra.cpp.
  static bool is_math_extra(Opcode op);
  std::string math_extra(const Stmt& s);

  std::string geometry(const Stmt& s);

  // ---- memory ------------------------------------------------------------------------------

  std::string mem_length(MemRef ref) const;
  uint32_t mem_code(MemRef ref) const;
  // The condition that index register `idx` is inside `ref`.
  std::string in_bounds(MemRef ref, Reg idx) const;
  std::string fault_call(FaultCode code, const Stmt& s, uint32_t mem, Reg value) const;
  std::string element(MemRef ref, Reg idx, bool bits_view) const;
  std::string element_at(MemRef ref, const std::string& index, bool bits_view) const;  // index: a uint

  std::string load_value(MemRef ref, Reg idx);
  std::string load_value_at(MemRef ref, const std::string& index);
  std::string store_value(MemRef ref, const std::string& value);

  void memory(const Stmt& s, std::string& out, const std::string& pad);

  // The bound of every value `reg` may hold, or none; flow-insensitive, memoised.
  std::optional<IndexBound> range_of(Reg reg);
  std::optional<IndexBound> range_of_definition(const Stmt& s);
  void find_definitions(const std::vector<Stmt>& stmts);
  // The condition (GLSL, constant once the workgroup size is specialised) that an access to
  // shared array `ref` at `idx` is in range whatever the thread, or "" when nothing is known.
  std::string proven_in_range(MemRef ref, Reg idx);

  // Registers holding only thread_id(0), and the buffers loads and stores index with them
  // (GlslShader::x_inside_buffers); while x_inside_ is set, those accesses are emitted unchecked.
  void find_x_inside_accesses();
  // The body of main: with such accesses, a copy without their checks for launches that keep
  // every thread id along x inside those buffers (pc.wave_x_inside), and the checked copy.
  std::string main_body();

  // check_index (glsl_check_index.cpp): the per-dimension bounds check of an array index.
  void check_index(const Stmt& s, std::string& out, const std::string& pad);

  std::string atomic_op(const Stmt& s);

  // Float atomics: f32 add natively where GL_EXT_shader_atomic_float is present, otherwise
  // (and for sub, min, max, exchange, and for f64) a compare-and-swap loop over the bits.
  std::string float_atomic(const Stmt& s);
  std::string cell_at(MemRef ref) const;
  void atomic(const Stmt& s, std::string& out, const std::string& pad);

  // ---- wave operations --------------------------------------------------------------------

  // A subgroupShuffle of any register type (64-bit integers move as two words).
  static std::string shuffle(ScalarType t, const std::string& x, const std::string& lane);

  void wave(const Stmt& s, std::string& out, const std::string& pad);

  // ---- statements ---------------------------------------------------------------------------

  // `loop_flag` names the break flag of the innermost loop when its body is wrapped (see Loop).
  void statement(const Stmt& s, std::string& out, int depth, int loop_id);

  static bool has_continue(const std::vector<Stmt>& stmts);

  void block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop_id);

  void control(const Stmt& s, std::string& out, int depth, int loop_id);

  // ---- launch control (glsl_launch_control.cpp) ---------------------------------------------

  // Declarations of the launch words (inside the push constant block).
  std::string launch_declarations() const;
  // Global declarations: the iteration count of each subgroup on devices with a loop limit.
  std::string loop_limit_declarations() const;
  // At the start of main (after shared memory is cleared): invocations past the limit return.
  std::string launch_guard() const;
  // The increment expression of a loop: counts a back-edge.
  std::string loop_step();
  // The same for the loops of generated helper code (integer powers, float atomics, wave
  // reductions): a statement at the top of each pass, and one after the loop (the pass that
  // leaves it, which the device counts too). Counted like the kernel's loops, so that a kernel
  // loop around them detects the device's loop limit (loop_exit_check) and the loop budget
  // covers them.
  std::string helper_loop_step();
  [[nodiscard]] std::string helper_loop_exit() const;
  // The top of a loop's body: stops an invocation over its budget.
  std::string loop_header(const Stmt& s, const std::string& pad) const;
  // After a loop: the device may have ended it by itself (GlslTarget::device_loop_limit).
  std::string loop_exit_check(const Stmt& s, const std::string& pad) const;

  const Module& m_;
  const GlslTarget& target_;
  bool uses_int64_ = false;
  bool uses_float64_ = false;
  bool uses_f16_buffers_ = false;
  bool uses_subgroup_basic_ = false;
  bool uses_ballot_ = false;
  bool uses_shuffle_ = false;
  bool uses_arithmetic_ = false;
  bool uses_atomic_float_ = false;
  bool uses_atomic_int64_ = false;
  int loops_ = 0;
  std::set<uint32_t> uint_view_;
  std::set<Reg> thread_x_registers_;
  bool definitions_found_ = false;
  std::map<Reg, std::vector<const Stmt*>> definitions_;
  std::map<const Stmt*, std::pair<Reg, Reg>> counter_copies_;  // `x = mov counter` in a range() loop: counter, stop
  std::map<Reg, std::optional<IndexBound>> ranges_;
  std::set<Reg> ranging_;  // being evaluated (a cycle has no bound)
  std::set<uint32_t> x_inside_buffers_;
  bool x_inside_ = false;
  std::vector<bool> written_;
  std::vector<bool> read_;
  std::vector<uint32_t> length_offsets_;
  std::vector<uint32_t> scalar_offsets_;
  uint32_t push_bytes_ = 0;
  uint32_t launch_offset_ = 0;
  bool counts_group_loops_ = false;  // a loop counts its subgroup's iterations (glsl_launch_control.cpp)
  std::set<std::string> helper_names_;
  std::vector<std::pair<std::string, std::string>> helpers_;
};

// The message of a LoopBudget or DeviceLoopLimit fault; `iterations` is the recorded count.
[[nodiscard]] std::string describe_loop_fault(FaultCode code, const std::string& iterations);

}  // namespace wavestack::wave::glsl_detail
