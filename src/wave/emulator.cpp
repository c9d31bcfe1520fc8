// Program construction, launch validation and the workgroup scheduler: waves of one
// workgroup advance round-robin, each to its next barrier; all must meet at the same one.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>

#include "runtime/error.hpp"
#include "runtime/thread_pool.hpp"
#include "wave/emulator_internal.hpp"
#include "wave/errors.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {

void fault(const WaveCtx& w, uint32_t line, uint32_t lane, const std::string& what) {
  const uint32_t local = w.wave_index * w.width + lane;
  throw KernelError("kernel '" + w.module->name + "', line " + std::to_string(line) + ": " + what + " (workgroup (" +
                        std::to_string(w.group[0]) + ", " + std::to_string(w.group[1]) + ", " +
                        std::to_string(w.group[2]) + "), wave " + std::to_string(w.wave_index) + ", lane " +
                        std::to_string(lane) + ", local thread " + std::to_string(local) + ")",
                    line);
}

namespace {

enum class Stop { Finished, Barrier };

std::string lane_list(uint64_t mask) {
  std::string text;
  for (uint64_t bits = mask; bits != 0; bits &= bits - 1) {
    text += (text.empty() ? "" : ", ") + std::to_string(std::countr_zero(bits));
  }
  return text;
}

// The bit mask of the lanes whose bool is true. Eight lanes at a time: bools are bytes 0 or
// 1, and the multiply moves byte i's low bit to bit 56 + i with no carries in between.
uint64_t lane_mask(const bool* values, uint32_t width) {
  uint64_t mask = 0;
  if (std::endian::native == std::endian::little && width % 8 == 0) {
    for (uint32_t l = 0; l < width; l += 8) {
      uint64_t bytes = 0;
      std::memcpy(&bytes, values + l, 8);
      mask |= ((bytes * 0x0102040810204080ULL) >> 56) << l;
    }
  } else {
    for (uint32_t l = 0; l < width; ++l) mask |= static_cast<uint64_t>(values[l]) << l;
  }
  return mask;
}

Stop run_wave(WaveCtx& w, const LInstr* code) {
  uint32_t pc = w.pc;
  for (;;) {
    const LInstr& in = code[pc];
    if (in.kind == Control::Compute) [[likely]] {
      in.fn(w, in);
      ++pc;
      continue;
    }
    switch (in.kind) {
      case Control::If: {
        const uint64_t taken = lane_mask(lanes<bool>(w, in.a), w.width) & w.active;
        w.stack[in.slot] = w.active & ~taken;  // lanes waiting for the else block
        w.active = taken;
        pc = taken != 0 ? pc + 1 : in.target;
        break;
      }
      case Control::Else: {
        const uint64_t then_lanes = w.active;
        w.active = w.stack[in.slot];
        w.stack[in.slot] = then_lanes;
        pc = w.active != 0 ? pc + 1 : in.target;
        break;
      }
      case Control::EndIf:
        w.active |= w.stack[in.slot];
        pc = w.active != 0 ? pc + 1 : in.skip;
        break;
      case Control::LoopBegin:
        w.stack[in.slot] = 0;
        w.stack[in.slot + 1] = 0;
        ++pc;
        break;
      case Control::Break:
        w.stack[in.slot] |= w.active;
        w.active = 0;
        pc = in.skip;
        break;
      case Control::Continue:
        w.stack[in.slot + 1] |= w.active;
        w.active = 0;
        pc = in.skip;
        break;
      case Control::Return:
        w.returned |= w.active;
        w.active = 0;
        pc = in.skip;
        break;
      case Control::Continuing:
        w.active |= w.stack[in.slot + 1];
        w.stack[in.slot + 1] = 0;
        pc = w.active != 0 ? pc + 1 : in.target;
        break;
      case Control::LoopEnd:
        if (w.active != 0) {
          // A kernel that never ends must still answer Ctrl-C and timeouts.
          if (w.geo->stop->load(std::memory_order_relaxed) != 0) [[unlikely]] {
            throw LaunchStopped("kernel '" + w.module->name + "' was stopped");
          }
          pc = in.target;
        } else {
          w.active = w.stack[in.slot];
          pc = w.active != 0 ? pc + 1 : in.skip;
        }
        break;
      case Control::Barrier:
        if (w.active != w.launched) {
          const uint64_t missing = w.launched & ~w.active;
          const uint32_t first = static_cast<uint32_t>(std::countr_zero(missing));
          const std::string why = (missing & w.returned) != 0 ? "returned earlier" : "took another branch";
          fault(w, in.line, first,
                "barrier in divergent control flow: lanes " + lane_list(w.active) + " of wave " +
                    std::to_string(w.wave_index) + " reached it but lanes " + lane_list(missing) + " " + why);
        }
        w.pc = pc + 1;
        w.barrier_pc = pc;
        return Stop::Barrier;
      case Control::End:
        w.pc = pc;
        return Stop::Finished;
      case Control::Compute:
        break;
    }
  }
}

// Runs whole workgroups; one runner per thread reuses its buffers across workgroups.
class WorkgroupRunner {
 public:
  WorkgroupRunner(const Module& module, const LoweredCode& code, const Geometry& geo, std::span<const Argument> args,
                  const std::vector<MemoryView>& buffers)
      : m_(module), code_(code), geo_(geo), args_(args) {
    waves_count_ = (geo.group_threads + geo.width - 1) / geo.width;
    regs_per_wave_ = module.registers.size() * geo.width;
    regs_.resize(std::max<size_t>(regs_per_wave_ * waves_count_, 1));  // value-initialised: zero
    stacks_.resize(static_cast<size_t>(code.stack_depth) * waves_count_);
    waves_.resize(waves_count_);
    finished_.resize(waves_count_);
    mems_ = buffers;
    size_t shared_bytes = 0;
    for (const auto& s : module.shared) {
      shared_offsets_.push_back(shared_bytes);
      shared_bytes += (static_cast<size_t>(s.count) * type_size(s.element) + 7) / 8 * 8;
    }
    shared_.resize(std::max<size_t>(shared_bytes / 8, 1));
    for (size_t i = 0; i < module.shared.size(); ++i) {
      mems_.push_back({reinterpret_cast<std::byte*>(shared_.data()) + shared_offsets_[i], module.shared[i].count});
    }
  }

  void run(uint64_t linear_group) {
    const uint32_t group[3] = {
        static_cast<uint32_t>(linear_group % geo_.grid[0]),
        static_cast<uint32_t>((linear_group / geo_.grid[0]) % geo_.grid[1]),
        static_cast<uint32_t>(linear_group / (static_cast<uint64_t>(geo_.grid[0]) * geo_.grid[1])),
    };
    // Registers that may be read before written, and shared memory, start at zero in every
    // workgroup, so results never depend on which workgroup a thread ran before.
    for (uint32_t i = 0; i < waves_count_; ++i) {
      for (const uint32_t r : code_.maybe_unset) {
        std::memset(static_cast<void*>(regs_.data() + regs_per_wave_ * i + static_cast<size_t>(r) * geo_.width), 0,
                    sizeof(Value) * geo_.width);
      }
    }
    std::fill(shared_.begin(), shared_.end(), 0);
    const uint64_t all = geo_.width == 64 ? ~uint64_t{0} : (uint64_t{1} << geo_.width) - 1;
    auto& finished = finished_;
    for (uint32_t i = 0; i < waves_count_; ++i) {
      WaveCtx& w = waves_[i];
      w.regs = regs_.data() + regs_per_wave_ * i;
      w.stack = stacks_.data() + static_cast<size_t>(code_.stack_depth) * i;
      w.mems = mems_.data();
      w.geo = &geo_;
      w.module = &m_;
      w.width = geo_.width;
      w.all_lanes = all;
      const uint32_t lane_count = std::min(geo_.width, geo_.group_threads - i * geo_.width);
      w.launched = lane_count == 64 ? ~uint64_t{0} : (uint64_t{1} << lane_count) - 1;
      w.launched &= launched_within_limit(group, i);
      w.active = w.launched;
      // A wave with no thread inside the limit does not exist: it never runs.
      finished[i] = w.launched == 0;
      w.returned = 0;
      w.wave_index = i;
      std::copy(group, group + 3, w.group);
      w.pc = 0;
      for (size_t s = 0; s < m_.scalars.size(); ++s) {
        const Value value = args_[scalar_param(s)].scalar;
        visit_register_type(m_.scalars[s].type,
                            [&]<class T>() { std::fill_n(lanes<T>(w, m_.scalars[s].reg), geo_.width, get<T>(value)); });
      }
    }
    for (;;) {
      if (geo_.stop->load(std::memory_order_relaxed) != 0) {
        throw LaunchStopped("kernel '" + m_.name + "' was stopped");
      }
      size_t done = 0;
      int waiting = -1;
      for (uint32_t i = 0; i < waves_count_; ++i) {
        if (!finished[i]) finished[i] = run_wave(waves_[i], code_.code.data()) == Stop::Finished;
        if (finished[i]) {
          ++done;
        } else if (waiting < 0) {
          waiting = static_cast<int>(i);
        }
      }
      if (done == waves_count_) return;
      check_barrier_meeting(finished, static_cast<uint32_t>(waiting));
    }
  }

 private:
  // The lanes of wave `wave` whose global ids are all below the launch limit.
  uint64_t launched_within_limit(const uint32_t group[3], uint32_t wave) const {
    const uint32_t* size = geo_.workgroup;
    bool whole_group_inside = true;  // every workgroup but the last ones: no lane to test
    for (int d = 0; d < 3; ++d) {
      whole_group_inside = whole_group_inside && (static_cast<uint64_t>(group[d]) + 1) * size[d] <= geo_.limit[d];
    }
    if (whole_group_inside) return ~uint64_t{0};
    uint64_t mask = 0;
    for (uint32_t lane = 0; lane < geo_.width; ++lane) {
      const uint64_t local = static_cast<uint64_t>(wave) * geo_.width + lane;
      const uint64_t xyz[3] = {local % size[0], (local / size[0]) % size[1], local / (size[0] * size[1])};
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        inside = inside && static_cast<uint64_t>(group[d]) * size[d] + xyz[d] < geo_.limit[d];
      }
      if (inside) mask |= uint64_t{1} << lane;
    }
    return mask;
  }

  size_t scalar_param(size_t scalar_index) const {
    for (size_t p = 0; p < m_.params.size(); ++p) {
      if (m_.params[p].kind == Param::Kind::Scalar && m_.params[p].index == scalar_index) return p;
    }
    return 0;
  }

  // All waves not finished wait at a barrier; they must all wait at the same one, and no
  // wave may have finished without reaching it.
  void check_barrier_meeting(const std::vector<bool>& finished, uint32_t first_waiting) const {
    const WaveCtx& lead = waves_[first_waiting];
    const uint32_t line = code_.code[lead.barrier_pc].line;
    for (uint32_t i = 0; i < waves_count_; ++i) {
      if (waves_[i].launched == 0) continue;  // padding past the limit: not launched
      if (finished[i]) {
        fault(lead, line, 0,
              "deadlock: wave " + std::to_string(first_waiting) + " waits at this barrier but wave " +
                  std::to_string(i) + " finished without reaching it");
      }
      if (waves_[i].barrier_pc != lead.barrier_pc) {
        fault(lead, line, 0,
              "deadlock: waves wait at different barriers (wave " + std::to_string(first_waiting) + " at line " +
                  std::to_string(line) + ", wave " + std::to_string(i) + " at line " +
                  std::to_string(code_.code[waves_[i].barrier_pc].line) + ")");
      }
    }
  }

  const Module& m_;
  const LoweredCode& code_;
  const Geometry& geo_;
  std::span<const Argument> args_;
  uint32_t waves_count_ = 0;
  size_t regs_per_wave_ = 0;
  std::vector<Value> regs_;
  std::vector<uint64_t> stacks_;
  std::vector<WaveCtx> waves_;
  std::vector<bool> finished_;
  std::vector<MemoryView> mems_;
  std::vector<size_t> shared_offsets_;
  std::vector<uint64_t> shared_;  // 8-byte aligned workgroup memory
};

constexpr uint32_t kMaxWorkgroupThreads = 1024;
constexpr size_t kMaxSharedBytes = 64 * 1024;
constexpr uint64_t kMaxGlobalThreads = uint64_t{1} << 31;  // ids 0 .. 2^31 - 1
constexpr int64_t kMaxBufferLength = INT32_MAX;

}  // namespace

void check_launch(const Module& m, std::span<const Argument> args, const LaunchConfig& config) {
  using runtime::InvalidArgument;
  if (args.size() != m.params.size()) {
    throw InvalidArgument("arguments", "kernel '" + m.name + "' takes " + std::to_string(m.params.size()) +
                                           " arguments, got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = m.params[i];
    if (p.kind == Param::Kind::Buffer) {
      const auto& decl = m.buffers[p.index];
      if (!args[i].is_buffer) throw InvalidArgument(decl.name, "expects a buffer");
      if (args[i].buffer.element != decl.element) {
        throw InvalidArgument(decl.name, "expects " + std::string(type_name(decl.element)) + " elements, got " +
                                             std::string(type_name(args[i].buffer.element)));
      }
      if (args[i].buffer.length < 0 || (args[i].buffer.length > 0 && args[i].buffer.data == nullptr)) {
        throw InvalidArgument(decl.name, "has no storage");
      }
      if (args[i].buffer.length > kMaxBufferLength) {  // len() and indices are i32
        throw InvalidArgument(
            decl.name, "has " + std::to_string(args[i].buffer.length) + " elements; at most 2^31 - 1 are supported");
      }
    } else if (args[i].is_buffer) {
      throw InvalidArgument(m.scalars[p.index].name, "expects a scalar");
    }
  }
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (config.grid[d] == 0) throw InvalidArgument("grid", "every dimension must be at least 1");
    if (config.workgroup[d] == 0) throw InvalidArgument("workgroup", "every dimension must be at least 1");
    threads *= config.workgroup[d];
    // thread_id() is an i32: every global id of the launch must fit in one.
    if (static_cast<uint64_t>(config.grid[d]) * config.workgroup[d] > kMaxGlobalThreads) {
      throw InvalidArgument("grid", "covers " +
                                        std::to_string(static_cast<uint64_t>(config.grid[d]) * config.workgroup[d]) +
                                        " threads in dimension " + std::to_string(d) +
                                        "; thread_id() is a 32-bit int, "
                                        "so at most " +
                                        std::to_string(kMaxGlobalThreads) + " are allowed");
    }
  }
  if (threads > kMaxWorkgroupThreads) {
    throw InvalidArgument("workgroup", "has " + std::to_string(threads) + " threads; at most " +
                                           std::to_string(kMaxWorkgroupThreads) + " are allowed");
  }
  const uint32_t w = config.wave_width;
  if (w == 0 || w > 64 || (w & (w - 1)) != 0) {
    throw InvalidArgument("wave_width", "must be a power of two from 1 to 64, got " + std::to_string(w));
  }
  size_t shared = 0;
  for (const auto& s : m.shared) shared += static_cast<size_t>(s.count) * type_size(s.element);
  if (shared > kMaxSharedBytes) {
    throw InvalidArgument("shared", "kernel '" + m.name + "' uses " + std::to_string(shared) +
                                        " bytes of shared memory; at most " + std::to_string(kMaxSharedBytes) +
                                        " are available");
  }
}

Program::Program(Module module) : module_(std::move(module)) {
  verify(module_);
  code_ = std::make_unique<LoweredCode>(lower(module_));
}

Program::~Program() = default;

void Program::launch(std::span<const Argument> arguments, const LaunchConfig& config) const {
  check_launch(module_, arguments, config);
  Geometry geo{};
  for (int d = 0; d < 3; ++d) {
    geo.grid[d] = config.grid[d];
    geo.workgroup[d] = config.workgroup[d];
  }
  geo.width = config.wave_width;
  geo.group_threads = config.workgroup[0] * config.workgroup[1] * config.workgroup[2];
  geo.one_dimensional = config.workgroup[1] == 1 && config.workgroup[2] == 1;
  static const std::atomic<int> never{0};
  geo.stop = config.stop != nullptr ? config.stop : &never;
  for (int d = 0; d < 3; ++d) geo.limit[d] = config.limit[d];
  std::vector<MemoryView> buffers;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (module_.params[i].kind == Param::Kind::Buffer) {
      buffers.push_back({static_cast<std::byte*>(arguments[i].buffer.data), arguments[i].buffer.length});
    }
  }
  // buffers must be in declaration order (params list them in that order too)
  const uint64_t groups = static_cast<uint64_t>(geo.grid[0]) * geo.grid[1] * geo.grid[2];
  auto& pool = runtime::ThreadPool::shared();
  if (config.deterministic || pool.size() == 1 || groups == 1) {
    WorkgroupRunner runner(module_, *code_, geo, arguments, buffers);
    for (uint64_t g = 0; g < groups; ++g) runner.run(g);
    return;
  }
  // Contiguous chunks of workgroups, a few per thread so uneven work balances out.
  const uint64_t chunks = std::min<uint64_t>(groups, pool.size() * 8);
  std::atomic<bool> failed{false};
  pool.parallel_for(chunks, [&](size_t chunk) {
    WorkgroupRunner runner(module_, *code_, geo, arguments, buffers);
    const uint64_t begin = groups * chunk / chunks;
    const uint64_t end = groups * (chunk + 1) / chunks;
    for (uint64_t g = begin; g < end && !failed.load(std::memory_order_relaxed); ++g) {
      try {
        runner.run(g);
      } catch (...) {
        failed.store(true);
        throw;
      }
    }
  });
}

}  // namespace wavestack::wave
