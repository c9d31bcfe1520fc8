// Builds a Module statement by statement (the Python frontend drives it through nanobind).
// Control flow is opened and closed like the source: begin_if/begin_else/end_if,
// begin_loop/begin_continuing/end_loop. finish() verifies and hands the module over.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wave/ir.hpp"

namespace wavestack::wave {

class Builder {
 public:
  explicit Builder(std::string kernel_name);

  uint32_t add_buffer(const std::string& name, ScalarType element);
  Reg add_scalar(const std::string& name, ScalarType type);
  uint32_t add_shared(const std::string& name, ScalarType element, uint32_t count);
  Reg new_reg(ScalarType type);
  [[nodiscard]] ScalarType reg_type(Reg reg) const;

  void constant(Reg dst, Value value, uint32_t line);
  // A constant placed at the start of the kernel, where every lane sets it once (the frontend
  // keeps one register per distinct constant instead of re-materialising it in loops).
  void constant_at_entry(Reg dst, Value value, uint32_t line);
  // Any non-control instruction. `mem` names a buffer or shared array for memory
  // instructions and length; `dim` is the dimension of geometry instructions.
  void emit(Opcode op, Reg dst, std::span<const Reg> args, uint32_t line, std::string_view mem = {}, uint32_t dim = 0);

  void begin_if(Reg condition, uint32_t line);
  void begin_else();
  void end_if();
  void begin_loop(uint32_t line);
  void begin_continuing();
  void end_loop();
  void emit_break(uint32_t line);
  void emit_continue(uint32_t line);
  void emit_return(uint32_t line);
  void emit_barrier(uint32_t line);

  // Verifies the module; the builder is empty afterwards.
  [[nodiscard]] Module finish();

 private:
  struct Open {
    Stmt* node;
    bool second_block;  // else / continuing
  };
  std::vector<Stmt>& current();
  void check_name_free(const std::string& name) const;

  Module module_;
  std::vector<Stmt> prologue_;
  std::vector<Open> open_;
  bool finished_ = false;
};

}  // namespace wavestack::wave
