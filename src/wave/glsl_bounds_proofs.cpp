// What the Vulkan backend proves about indices so that their bounds checks can go: the
// launch-wide proof for accesses indexed by thread_id(0) (and the checked and unchecked copies
// of the body it selects between), and the bounds of shared-memory indices in terms of the
// workgroup size.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wave/glsl_emitter_internal.hpp"
#include "wave/thread_x_accesses.hpp"

namespace wavestack::wave::glsl_detail {

// The native cpu device's proof (cpp_emitter.cpp), per launch instead of per block of ids: a
// register that only ever holds thread_id(0) (or the zero it starts at) is below the launch's
// extent along x in every invocation that gets past the launch guard, and the host knows that
// extent and the buffers' lengths before the dispatch. When it is inside every buffer such a
// register indexes, their loads and stores cannot fault, and the pipeline made with
// specialisation constant 3 (wave_x_inside) set runs a copy of the body without those checks:
// vector add then has none left. A constant, not a push constant: the driver drops the copy
// that does not run (lavapipe ran vector add 2.3x slower with both copies behind a uniform
// branch than with the unchecked copy alone).
void Emitter::find_x_inside_accesses() {
  ThreadXAccesses found = find_thread_x_accesses(m_);
  thread_x_registers_ = std::move(found.registers);
  x_inside_buffers_ = std::move(found.buffers);
}

// Shared-memory indices proven in range. A tiled kernel indexes its tiles with local ids, range()
// loop counters and constants (`tile_a[j * 128 + ty * 8 + i]`); a bound of every value such an
// index may take, in terms of the workgroup size, turns its check into a comparison of
// constants once the pipeline specialises the size, which the driver folds away (the check
// stays for workgroups the bound does not cover). Flow-insensitive: a register's bound covers
// all its definitions and the zero it starts at; any definition not understood (or a cycle)
// leaves it unbounded. Bounds stay below 2^31 for workgroups up to 65536 wide, so no step of
// the arithmetic wraps.
namespace {

constexpr int64_t kMaxWorkgroupExtent = 65535;  // workgroup size - 1, at most

bool small(const IndexBound& b) {
  int64_t worst = b.c;
  for (const int64_t k : b.k) worst += k * kMaxWorkgroupExtent;
  return worst < (int64_t{1} << 31);
}

bool constant(const IndexBound& b) {
  return b.k[0] == 0 && b.k[1] == 0 && b.k[2] == 0;
}

IndexBound join(const IndexBound& a, const IndexBound& b) {
  IndexBound r{std::max(a.c, b.c), {}};
  for (size_t d = 0; d < 3; ++d) r.k[d] = std::max(a.k[d], b.k[d]);
  return r;
}

}  // namespace

void Emitter::find_definitions(const std::vector<Stmt>& stmts) {
  for (const auto& s : stmts) {
    if (s.dst != kNoReg) definitions_[s.dst].push_back(&s);
    // for x in range(start, stop, step) with a constant positive step (_frontend.stmt_For): the
    // body opens with `c = lt counter, stop; n = not c; if n { break }` and copies the counter
    // into the loop variable; the continuing block is `counter = add counter, step`.
    if (s.op == Opcode::Loop && s.body.size() > 3 && s.other.size() == 1) {
      const Stmt& test = s.body[0];
      const Stmt& negate = s.body[1];
      const Stmt& exit = s.body[2];
      const Stmt& step = s.other[0];
      const Reg counter = test.args[0];
      if (test.op == Opcode::Lt && negate.op == Opcode::Not && negate.args[0] == test.dst && exit.op == Opcode::If &&
          exit.args[0] == negate.dst && exit.body.size() == 1 && exit.body[0].op == Opcode::Break &&
          exit.other.empty() && step.op == Opcode::Add && step.dst == counter && step.args[0] == counter) {
        for (size_t i = 3; i < s.body.size() && s.body[i].op == Opcode::Mov; ++i) {
          if (s.body[i].args[0] == counter) counter_copies_[&s.body[i]] = {counter, test.args[1]};
        }
      }
    }
    find_definitions(s.body);
    find_definitions(s.other);
  }
}

std::optional<IndexBound> Emitter::range_of(Reg reg) {
  if (!definitions_found_) {
    find_definitions(m_.body);
    definitions_found_ = true;
  }
  if (const auto found = ranges_.find(reg); found != ranges_.end()) return found->second;
  for (const auto& scalar : m_.scalars) {
    if (scalar.reg == reg) return ranges_[reg] = std::nullopt;  // an argument
  }
  if (ranging_.contains(reg)) return std::nullopt;  // a cycle: not memoised, the outer call decides
  ranging_.insert(reg);
  std::optional<IndexBound> bound = IndexBound{};  // the zero every register starts at
  for (const Stmt* s : definitions_[reg]) {
    const auto defined = range_of_definition(*s);
    bound = defined && small(*defined) ? std::optional(join(*bound, *defined)) : std::nullopt;
    if (!bound) break;
  }
  ranging_.erase(reg);
  return ranges_[reg] = bound;
}

std::optional<IndexBound> Emitter::range_of_definition(const Stmt& s) {
  const ScalarType t = type_of(s.dst);
  if (t != ScalarType::I32 && t != ScalarType::U32) return std::nullopt;
  if (const auto copy = counter_copies_.find(&s); copy != counter_copies_.end()) {
    // Inside the body counter < stop; the counter starts at a value >= 0 and only grows by the
    // step, without wrapping while stop + step stays below 2^31.
    const auto& [counter, stop] = copy->second;
    const auto& defs = definitions_[counter];
    const auto stop_bound = range_of(stop);
    if (defs.size() != 2 || !stop_bound || !constant(*stop_bound) || stop_bound->c < 1) return std::nullopt;
    const Stmt* init = defs[0]->op == Opcode::Add && defs[0]->args[0] == counter ? defs[1] : defs[0];
    const Stmt* step = init == defs[0] ? defs[1] : defs[0];
    const auto step_bound = range_of(step->args[1]);
    const auto init_bound = range_of_definition(*init);
    if (!step_bound || !constant(*step_bound) || !init_bound || stop_bound->c + step_bound->c >= (int64_t{1} << 31)) {
      return std::nullopt;
    }
    return IndexBound{stop_bound->c - 1, {}};
  }
  const auto arg = [&](int i) { return range_of(s.args[i]); };
  switch (s.op) {
    case Opcode::Const: {
      const int64_t v = t == ScalarType::I32 ? int64_t{s.imm.i32} : int64_t{s.imm.u32};
      if (v < 0) return std::nullopt;
      return IndexBound{v, {}};
    }
    case Opcode::Mov:
    case Opcode::CheckIndex:  // the index itself
      return arg(0);
    case Opcode::LocalId: {
      IndexBound b;
      b.k[s.dim] = 1;
      return b;
    }
    case Opcode::Add: {
      const auto a = arg(0);
      const auto b = arg(1);
      if (!a || !b) return std::nullopt;
      IndexBound r{a->c + b->c, {}};
      for (size_t d = 0; d < 3; ++d) r.k[d] = a->k[d] + b->k[d];
      return r;
    }
    case Opcode::Mul: {
      auto a = arg(0);
      auto b = arg(1);
      if (!a || !b) return std::nullopt;
      if (!constant(*b)) std::swap(a, b);
      if (!constant(*b)) return std::nullopt;
      IndexBound r{a->c * b->c, {}};
      for (size_t d = 0; d < 3; ++d) r.k[d] = a->k[d] * b->c;
      return r;
    }
    case Opcode::BitAnd: {  // x & m lies in [0, m] for a mask m >= 0, whatever x is
      const auto m = arg(1);
      if (m && constant(*m)) return m;
      return std::nullopt;
    }
    case Opcode::Shr: {  // x >> n <= x for x >= 0
      const auto a = arg(0);
      const auto n = arg(1);
      if (!a || !n || !constant(*n)) return std::nullopt;
      if (constant(*a) && n->c < 31) return IndexBound{a->c >> n->c, {}};
      return a;
    }
    default:
      return std::nullopt;
  }
}

std::string Emitter::proven_in_range(MemRef ref, Reg idx) {
  if (ref.kind != MemRef::Kind::Shared) return "";
  const auto bound = range_of(idx);
  if (!bound) return "";
  const int64_t count = m_.shared[ref.index].count;
  if (constant(*bound)) return bound->c < count ? "true" : "";
  static const char* kAxes[3] = {"x", "y", "z"};
  std::string sum = std::to_string(bound->c) + "u";
  for (size_t d = 0; d < 3; ++d) {
    if (bound->k[d] != 0) {
      sum += " + " + std::to_string(bound->k[d]) + "u * (gl_WorkGroupSize." + kAxes[d] + " - 1u)";
    }
  }
  return "(" + sum + " < " + std::to_string(count) + "u)";
}

std::string Emitter::main_body() {
  std::string checked;
  if (target_.bounds_checks) find_x_inside_accesses();
  if (x_inside_buffers_.empty()) {
    for (const auto& s : m_.body) statement(s, checked, 1, 0);
    return checked + "  wave_report();\n";
  }
  std::string inside;
  x_inside_ = true;
  for (const auto& s : m_.body) statement(s, inside, 2, 0);
  x_inside_ = false;
  for (const auto& s : m_.body) statement(s, checked, 2, 0);
  // Each copy publishes its own faults: in the first, where nothing may fault, the compiler
  // then sees wave_code stay 0 and drops the report.
  return "  if (wave_x_inside) {  // thread_id(0) is inside every buffer it indexes\n" + inside +
         "    wave_report();\n  } else {\n" + checked + "    wave_report();\n  }\n";
}

}  // namespace wavestack::wave::glsl_detail
