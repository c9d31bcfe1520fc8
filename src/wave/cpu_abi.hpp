// The records the host passes to a kernel compiled for the native cpu device (cpu_program.*)
// and the fault codes it returns. cpu_preamble.cpp declares the same layout for the generated
// code, which includes no headers; the static_asserts below and the preamble's own keep the
// two in step.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace wavestack::wave::cpu_abi {

// What a kernel function returns (and records in Fault::code).
enum FaultCode : uint32_t {
  kNoFault = 0,
  kOutOfBounds = 1,       // value: the index; mem: buffer index; is_signed: the index type
  kIndexOutOfRange = 2,   // check_index: value, size and dim in the index type
  kDivisionByZero = 3,    // integer / // or % by zero
  kNegativeExponent = 4,  // integer ** with a negative exponent: value
  kStopped = 5,           // the launch's stop flag (Ctrl-C, timeout) or another chunk's fault
  kBarrierDivergent = 6,  // mem: the wave; value: lanes that arrived; size: lanes missing; is_signed: one returned
  kDeadlock = 7,          // mem: the waiting wave; value: the wave that finished without arriving
  kInactiveLane = 8,      // wave_broadcast / wave_shuffle from a lane that is not active: value
};

struct Buffer {
  void* data;
  int64_t length;  // elements
};

struct Fault {
  uint32_t code;
  uint32_t line;
  uint32_t group[3];
  uint32_t local;  // linear index of the thread in its workgroup
  uint32_t mem;
  uint32_t is_signed;
  uint64_t value;
  uint64_t size;
  uint64_t dim;
};

struct Launch {
  const Buffer* buffers;
  const uint64_t* scalars;  // each scalar parameter's bits, in declaration order
  uint32_t grid[3];
  uint32_t workgroup[3];
  uint32_t limit[3];
  uint32_t wave_width;
  const int* stop;    // non-zero: stop between workgroups and at loop back-edges
  const int* failed;  // non-zero: another chunk faulted; stop between workgroups
  float (*half_to_float)(uint16_t);
  uint16_t (*float_to_half)(float);
};

static_assert(sizeof(Buffer) == 16);
static_assert(sizeof(Fault) == 56);
static_assert(offsetof(Launch, wave_width) == 52 && offsetof(Launch, stop) == 56);
static_assert(sizeof(Launch) == 88);
static_assert(sizeof(std::atomic<int>) == sizeof(int));

// The generated entry point: runs workgroups [group_begin, group_end) (linear indices, x
// fastest), returns kNoFault or the code it recorded in `fault`. `scratch`: the chunk's own
// memory for a kernel in workgroup mode (scratch_bytes), else unused.
using KernelEntry = uint32_t (*)(const Launch* launch, uint64_t group_begin, uint64_t group_end, Fault* fault,
                                 void* scratch);

inline constexpr const char* kEntrySymbol = "wave_cpu_kernel";

}  // namespace wavestack::wave::cpu_abi
