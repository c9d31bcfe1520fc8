#include "wave/cpu_program.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/thread_pool.hpp"
#include "wave/cpp_emitter.hpp"
#include "wave/cpu_kernel_build.hpp"
#include "wave/errors.hpp"
#include "wave/half.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {
namespace {

float half_to_float_entry(uint16_t bits) {
  return half_to_float(bits);
}
uint16_t float_to_half_entry(float value) {
  return float_to_half(value);
}

std::string lane_list(uint64_t mask) {
  std::string text;
  for (uint64_t bits = mask; bits != 0; bits &= bits - 1) {
    text += (text.empty() ? "" : ", ") + std::to_string(std::countr_zero(bits));
  }
  return text;
}

std::string shown(uint64_t bits, bool is_signed) {
  return is_signed ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
}

// The emulator's message (emulator.cpp's fault()): the wave and lane of the thread are its
// local index over the wave width.
[[noreturn]] void raise(const Module& m, const cpu_abi::Fault& f, std::span<const Argument> arguments,
                        uint32_t wave_width) {
  std::string what;
  switch (f.code) {
    case cpu_abi::kOutOfBounds: {
      if (f.mem >= m.buffers.size()) {  // a shared array
        const SharedDecl& shared = m.shared[f.mem - m.buffers.size()];
        what = "index " + shown(f.value, f.is_signed != 0) + " is out of bounds of shared array '" + shared.name +
               "' (length " + std::to_string(shared.count) + ")";
        break;
      }
      int64_t length = 0;
      for (size_t p = 0; p < m.params.size(); ++p) {
        if (m.params[p].kind == Param::Kind::Buffer && m.params[p].index == f.mem) length = arguments[p].buffer.length;
      }
      what = "index " + shown(f.value, f.is_signed != 0) + " is out of bounds of buffer '" + m.buffers[f.mem].name +
             "' (length " + std::to_string(length) + ")";
      break;
    }
    case cpu_abi::kBarrierDivergent:
      what = "barrier in divergent control flow: lanes " + lane_list(f.value) + " of wave " + std::to_string(f.mem) +
             " reached it but lanes " + lane_list(f.size) + " " +
             (f.is_signed != 0 ? "returned earlier" : "took another branch");
      break;
    case cpu_abi::kInactiveLane:
      what = "reads lane " + shown(f.value, true) + ", which is not an active lane of the wave";
      break;
    case cpu_abi::kDeadlock:
      what = "deadlock: wave " + std::to_string(f.mem) + " waits at this barrier but wave " + std::to_string(f.value) +
             " finished without reaching it";
      break;
    case cpu_abi::kIndexOutOfRange:
      what = "index " + shown(f.value, f.is_signed != 0) + " out of range for dimension " +
             shown(f.dim, f.is_signed != 0) + " of size " + shown(f.size, f.is_signed != 0);
      break;
    case cpu_abi::kDivisionByZero:
      what = "integer division by zero";
      break;
    default:
      what = "negative integer exponent " + shown(f.value, true);
      break;
  }
  throw KernelError("kernel '" + m.name + "', line " + std::to_string(f.line) + ": " + what + " (workgroup (" +
                        std::to_string(f.group[0]) + ", " + std::to_string(f.group[1]) + ", " +
                        std::to_string(f.group[2]) + "), wave " + std::to_string(f.local / wave_width) + ", lane " +
                        std::to_string(f.local % wave_width) + ", local thread " + std::to_string(f.local) + ")",
                    f.line);
}

}  // namespace

CpuProgram::CpuProgram(Module module, bool bounds_checks) : module_(std::move(module)) {
  verify(module_);
  source_ = emit_cpp(module_, CppTarget{bounds_checks});
  const auto start = std::chrono::steady_clock::now();
  const BuiltCpuKernel built = build_cpu_kernel(source_);
  compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  entry_ = built.entry;
  from_cache_ = built.from_cache;
}

void CpuProgram::launch(std::span<const Argument> arguments, const LaunchConfig& config) const {
  check_launch(module_, arguments, config);
  std::vector<cpu_abi::Buffer> buffers(module_.buffers.size());
  std::vector<uint64_t> scalars(module_.scalars.size());
  for (size_t p = 0; p < module_.params.size(); ++p) {
    const Param& param = module_.params[p];
    if (param.kind == Param::Kind::Buffer) {
      buffers[param.index] = {arguments[p].buffer.data, arguments[p].buffer.length};
    } else {
      std::memcpy(&scalars[param.index], &arguments[p].scalar, sizeof(uint64_t));
    }
  }
  static const std::atomic<int> never{0};
  std::atomic<int> failed{0};
  cpu_abi::Launch launch{};
  launch.buffers = buffers.data();
  launch.scalars = scalars.data();
  for (int d = 0; d < 3; ++d) {
    launch.grid[d] = config.grid[d];
    launch.workgroup[d] = config.workgroup[d];
    launch.limit[d] = config.limit[d];
  }
  launch.wave_width = config.wave_width;
  // The generated code reads the flags with relaxed atomic loads of their int.
  launch.stop = reinterpret_cast<const int*>(config.stop != nullptr ? config.stop : &never);
  launch.failed = reinterpret_cast<const int*>(&failed);
  launch.half_to_float = &half_to_float_entry;
  launch.float_to_half = &float_to_half_entry;

  const uint64_t groups = static_cast<uint64_t>(config.grid[0]) * config.grid[1] * config.grid[2];
  auto& pool = runtime::ThreadPool::shared();
  const uint64_t chunks = config.deterministic || pool.size() == 1 ? 1 : std::min<uint64_t>(groups, pool.size() * 8);
  std::vector<cpu_abi::Fault> faults(chunks);
  const uint64_t scratch_bytes =
      workgroup_scratch_bytes(module_, config.workgroup[0] * config.workgroup[1] * config.workgroup[2]);
  std::vector<uint32_t> codes(chunks, cpu_abi::kNoFault);
  auto run_chunk = [&](size_t chunk) {
    const uint64_t begin = groups * chunk / chunks;
    const uint64_t end = groups * (chunk + 1) / chunks;
    std::vector<uint64_t> scratch((scratch_bytes + 7) / 8);  // the chunk's registers and shared memory
    codes[chunk] = entry_(&launch, begin, end, &faults[chunk], scratch.data());
    if (codes[chunk] != cpu_abi::kNoFault && codes[chunk] != cpu_abi::kStopped) failed.store(1);
  };
  if (chunks == 1) {
    run_chunk(0);
  } else {
    pool.parallel_for(chunks, run_chunk);
  }
  // The first chunk's fault: with threads=1 the first faulting workgroup in order, as on the
  // emulator. A chunk stopped because another faulted says nothing.
  for (uint64_t c = 0; c < chunks; ++c) {
    if (codes[c] != cpu_abi::kNoFault && codes[c] != cpu_abi::kStopped) {
      raise(module_, faults[c], arguments, config.wave_width);
    }
  }
  for (uint64_t c = 0; c < chunks; ++c) {
    if (codes[c] == cpu_abi::kStopped) throw LaunchStopped("kernel '" + module_.name + "' was stopped");
  }
}

}  // namespace wavestack::wave
