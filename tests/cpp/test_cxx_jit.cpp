// The in-process compiler (src/jit): units compile against a precompiled preamble, link, and
// compute what the same C++ computes when built into this test; errors carry the compiler's
// messages; units may export the same names; the cpu device's freestanding preamble compiles;
// what its identity depends on is found without loading it.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "jit/jit_loader.hpp"
#include "wasm/device/compiled_glsl.hpp"

namespace {

using wavestack::jit::CxxJit;
using wavestack::jit::OptLevel;

CxxJit* jit_or_skip() {
  std::string why_not;
  CxxJit* jit = wavestack::jit::cxx_jit(&why_not);
  if (jit == nullptr) ADD_FAILURE() << "no in-process compiler: " << why_not;
  return jit;
}

// Shared by the units below and by this test (the reference).
constexpr std::string_view kPreamble = R"(
namespace lib {
inline unsigned mix(unsigned x, unsigned y) { return (x * 2654435761u) ^ (y + (x >> 7)); }
inline double half(double v) { return v * 0.5; }
}
)";

std::uint32_t reference_mix(std::uint32_t x, std::uint32_t y) {
  return (x * 2654435761u) ^ (y + (x >> 7));
}

constexpr std::string_view kUnit = R"(
extern "C" unsigned run(unsigned n) {
  unsigned h = 1;
  for (unsigned i = 0; i < n; ++i) h = lib::mix(h, i);
  return h;
}
extern "C" double halve(double v) { return lib::half(v) + __builtin_sqrt(v); }
)";

TEST(CxxJit, UnitsComputeWhatTheSameCppComputesAtBothLevels) {
  CxxJit* jit = jit_or_skip();
  if (jit == nullptr) return;
  std::uint32_t expected = 1;
  for (std::uint32_t i = 0; i < 1000; ++i) expected = reference_mix(expected, i);
  for (const OptLevel level : {OptLevel::kFast, OptLevel::kOptimized}) {
    const std::string object = jit->compile(kPreamble, kUnit, level);
    ASSERT_GT(object.size(), 64U);
    EXPECT_EQ(object.substr(0, 4), std::string("\x7f"
                                               "ELF"));
    const std::array<const char*, 2> names{"run", "halve"};
    const std::vector<void*> symbols = jit->load(object, names);
    ASSERT_EQ(symbols.size(), 2U);
    auto run = reinterpret_cast<unsigned (*)(unsigned)>(symbols[0]);
    auto halve = reinterpret_cast<double (*)(double)>(symbols[1]);
    EXPECT_EQ(run(1000), expected);
    EXPECT_EQ(halve(16.0), 12.0);
  }
  EXPECT_FALSE(jit->identity().empty());
}

TEST(CxxJit, UnitsMayExportTheSameNamesAndCompileInParallel) {
  CxxJit* jit = jit_or_skip();
  if (jit == nullptr) return;
  std::array<unsigned, 4> results{};
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < results.size(); ++k) {
    threads.emplace_back([&, k] {
      const std::string source = "extern \"C\" unsigned value() { return lib::mix(" + std::to_string(k) + "u, 3u); }";
      const std::array<const char*, 1> names{"value"};
      const auto symbols = jit->load(jit->compile(kPreamble, source, OptLevel::kFast), names);
      results[k] = reinterpret_cast<unsigned (*)()>(symbols[0])();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (unsigned k = 0; k < results.size(); ++k) EXPECT_EQ(results[k], reference_mix(k, 3u)) << k;
}

TEST(CxxJit, ErrorsCarryTheCompilersMessages) {
  CxxJit* jit = jit_or_skip();
  if (jit == nullptr) return;
  try {
    (void)jit->compile(kPreamble, "int broken() { return lib::no_such_function(); }", OptLevel::kFast);
    FAIL() << "compiled";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("no_such_function"), std::string::npos) << error.what();
  }
  const std::string object = jit->compile(kPreamble, "extern \"C\" int present() { return 1; }", OptLevel::kFast);
  const std::array<const char*, 1> names{"absent"};
  EXPECT_THROW((void)jit->load(object, names), std::runtime_error);
}

TEST(CxxJit, TheCpuDevicesFreestandingPreamblesCompile) {
  CxxJit* jit = jit_or_skip();
  if (jit == nullptr) return;
  using wavestack::wasm::device::CpuPreamble;
  {
    const std::string& preamble = wavestack::wasm::device::compiled_cpu_preamble(CpuPreamble::kInProcess);
    EXPECT_EQ(preamble.find("#include <"), std::string::npos);
    const std::string source =
        "extern \"C\" unsigned shifted(unsigned v) { return wavestack::wasm::device::i32_shl(v, 33u); }";
    const std::array<const char*, 1> names{"shifted"};
    for (const OptLevel level : {OptLevel::kFast, OptLevel::kOptimized}) {
      const auto symbols = jit->load(jit->compile(preamble, source, level), names);
      EXPECT_EQ(reinterpret_cast<unsigned (*)(unsigned)>(symbols[0])(5U), 10U);
    }
  }
}

}  // namespace

// What the identity is a function of is found without loading the compiler, names the library
// that would be loaded, does not change within a process, and is what the loaded compiler is
// then found by (cxx_jit_if_loaded never loads it).
TEST(CxxJit, TheIdentitysInputsNameTheLibraryWithoutLoadingIt) {
  const std::string inputs = wavestack::jit::cxx_jit_identity_inputs();
  ASSERT_FALSE(inputs.empty());
  EXPECT_NE(inputs.find("libwavestack_jit.so|"), std::string::npos) << inputs;
  EXPECT_EQ(wavestack::jit::cxx_jit_identity_inputs(), inputs);
  CxxJit* jit = jit_or_skip();
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(wavestack::jit::cxx_jit_if_loaded(), jit);
}
