// The C++ emitter's translator class, shared by its source files: cpp_emitter.cpp (the kernel's
// frame, statements and control flow), cpp_expressions.cpp (values) and cpp_memory.cpp (loads,
// stores, atomics and their checks).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "wave/cpp_emitter.hpp"

namespace wavestack::wave::cpp_detail {

// The preamble's name of a register type (f16 registers hold f32).
[[nodiscard]] std::string cpp_type(ScalarType type);
// A literal of exactly `value` (floats through their bits: NaN payloads and -0 survive).
[[nodiscard]] std::string cpp_literal(ScalarType type, Value value);

class CppEmitter {
 public:
  CppEmitter(const Module& m, const CppTarget& target) : m_(m), target_(target) {}
  std::string run();

 private:
  // ---- cpp_emitter.cpp ----
  [[noreturn]] void unsupported(const std::string& what, uint32_t line) const;
  std::string frame_begin() const;
  std::string thread_function(const std::string& name, bool proven);
  void find_thread_x_registers();
  void block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop);
  void statement(const Stmt& s, std::string& out, int depth, int loop);
  void control(const Stmt& s, std::string& out, int depth, int loop);

  // ---- cpp_workgroup.cpp ----
 public:
  static bool has_barrier(const Stmt& s);

 private:
  static std::string barrier_check(uint32_t line, const std::string& pad);
  std::string run_workgroup();
  void workgroup_block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop);
  void lane_phase(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop);
  void wave_phase(const Stmt& s, std::string& out, const std::string& pad);

  // ---- cpp_expressions.cpp ----
  std::string unary(const Stmt& s) const;
  std::string binary(const Stmt& s, std::string& checks, const std::string& pad) const;
  std::string compare(const Stmt& s) const;
  std::string geometry(const Stmt& s) const;
  std::string math_extra(const Stmt& s) const;

  // ---- cpp_memory.cpp ----
  void memory(const Stmt& s, std::string& out, const std::string& pad) const;
  void atomic(const Stmt& s, std::string& out, const std::string& pad) const;
  void check_index(const Stmt& s, std::string& out, const std::string& pad) const;
  // `return wave_fault(...)` with the thread's place: the fault record's fields in order.
  // In lane-vector mode every fault is instead a request to run the group's threads one by one
  // (cpp_lane_vectors.cpp), which then fault exactly where the emulator does.
  std::string fault(const std::string& code, uint32_t line, const std::string& mem, const std::string& is_signed,
                    const std::string& value, const std::string& size, const std::string& dim) const;

  // ---- cpp_lane_vectors.cpp ----
  bool lane_vectors_eligible() const;
  static std::string lane_vector_prelude();
  std::string vector_thread_function(const std::string& name, bool proven);
  void vblock(const std::vector<Stmt>& stmts, std::string& out, int depth, const std::string& mask, int loop);
  void vstatement(const Stmt& s, std::string& out, int depth, const std::string& mask, int loop);
  void vcontrol(const Stmt& s, std::string& out, int depth, const std::string& mask, int loop);
  std::string vector_value(const Stmt& s) const;
  void vector_access(const Stmt& s, std::string& out, const std::string& pad, const std::string& mask);
  std::string vector_geometry(const Stmt& s) const;

  // A register: a local variable, or in workgroup mode this lane's slot of its array; in
  // lane-vector mode, inside a loop over lanes, the lane's element (a bool is a -1/0 mask).
  std::string r(Reg reg) const {
    if (!lane_.empty()) {
      const std::string element = "r" + std::to_string(reg) + "[" + lane_ + "]";
      return type_of(reg) == ScalarType::Bool ? "(" + element + " != 0)" : element;
    }
    return "r" + std::to_string(reg) + (lanes_ ? "[wave_t]" : "");
  }
  ScalarType type_of(Reg reg) const { return m_.registers[reg]; }

  const Module& m_;
  CppTarget target_;
  int loops_ = 0;
  std::set<Reg> thread_x_registers_;   // registers holding only thread_id(0)
  std::set<uint32_t> proven_buffers_;  // buffers some load or store indexes with one of them
  bool proven_ = false;                // emitting the thread whose range is proven in bounds
  bool lanes_ = false;                 // workgroup mode: registers are per-lane arrays
  bool vector_ = false;                // lane-vector mode: registers are vectors of kVectorLanes threads
  std::string lane_;                   // in lane-vector mode, the lane loop's index while emitting per lane
  int vmasks_ = 0;                     // lane-vector mode: mask variables named so far
  std::set<int> continuing_loops_;     // lane-vector mode: loops whose continuing block is being emitted
  int phase_ = 0;                      // the lane loop being emitted (its end label)
  int phases_ = 0;
  int constructs_ = 0;  // workgroup-level Ifs and Loops (their lane states)
};

}  // namespace wavestack::wave::cpp_detail
