// The linker of the in-process compiler's objects (src/jit/object_loader.hpp): objects the
// compiler emits, linked by it, compute what the same C++ computes in this test (through a
// shared runtime's calls, jump tables in read-only data, calls into the C library beyond 32-bit
// reach); what it does not handle is refused with the reason and nothing published, and then
// linked by JITLink through CxxJit::load; units load in parallel; after a fork both processes
// load more without changing each other's code, and a child forked while a thread links can link.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "jit/jit_loader.hpp"
#include "jit/object_loader.hpp"

namespace {

using wavestack::jit::CxxJit;
using wavestack::jit::ObjectLoader;
using wavestack::jit::OptLevel;
using wavestack::jit::PreambleCode;

CxxJit* compiler() {
  std::string why_not;
  CxxJit* jit = wavestack::jit::cxx_jit(&why_not);
  if (jit == nullptr) ADD_FAILURE() << "no in-process compiler: " << why_not;
  return jit;
}

std::unique_ptr<ObjectLoader> loader(std::uint64_t placement = 0) {
  std::string why_not;
  auto made = ObjectLoader::create(&why_not, placement);
  if (!made) ADD_FAILURE() << "no object loader: " << why_not;
  return made;
}

// A runtime the units call (compiled once into an object with external linkage, as the fast
// tier's shared runtime is) and its reference here.
constexpr std::string_view kRuntime = R"(
namespace rt {
inline namespace shared {
unsigned scramble(unsigned x) { return (x ^ (x >> 15)) * 0x2c1b3c6dU; }
const unsigned kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};
unsigned table(unsigned i) { return kTable[i & 7U]; }
}
}
)";

std::uint32_t reference_scramble(std::uint32_t x) {
  return (x ^ (x >> 15)) * 0x2c1b3c6dU;
}

// A unit: calls into the runtime, a switch dense enough for a jump table, the C library.
constexpr std::string_view kUnit = R"(
extern "C" unsigned mixed(unsigned n) {
  unsigned h = 7;
  for (unsigned i = 0; i < n; ++i) h = rt::scramble(h + rt::table(i));
  return h;
}
extern "C" int pick(int k) {
  switch (k) {
    case 0: return 11; case 1: return 23; case 2: return 37; case 3: return 41;
    case 4: return 53; case 5: return 67; case 6: return 71; case 7: return 89;
    default: return -1;
  }
}
extern "C" double sine(double x) { return __builtin_sin(x); }
extern "C" void copy(void* to, const void* from, unsigned long n) { __builtin_memcpy(to, from, n); }
)";

std::string compile_runtime(CxxJit& jit) {
  return jit.compile_preamble_object(kRuntime);
}

std::string compile_unit(CxxJit& jit, std::string_view source, OptLevel level = OptLevel::kFast) {
  return jit.compile(kRuntime, source, level, PreambleCode::kShared);
}

// Far from every library (32 TiB; the C library is mapped near 128 TiB): calls into it go
// through stubs.
constexpr std::uint64_t kFarFromLibraries = std::uint64_t{1} << 45;

TEST(ObjectLoader, LinkedUnitsComputeWhatTheSameCppComputes) {
  CxxJit* jit = compiler();
  auto linker = loader(kFarFromLibraries);
  if (jit == nullptr || !linker) return;
  std::string why_not;
  ASSERT_TRUE(linker->load(compile_runtime(*jit), "runtime", {}, true, &why_not)) << why_not;
  bool exported_scramble = false;
  for (const auto& [name, address] : linker->exported()) {
    exported_scramble = exported_scramble || name.find("scramble") != std::string::npos;
  }
  EXPECT_TRUE(exported_scramble);
  for (const OptLevel level : {OptLevel::kFast, OptLevel::kOptimized}) {
    const std::array<const char*, 4> names{"mixed", "pick", "sine", "copy"};
    const auto addresses = linker->load(compile_unit(*jit, kUnit, level), "unit", names, false, &why_not);
    ASSERT_TRUE(addresses) << why_not;
    ASSERT_EQ(addresses->size(), 4U);
    const auto entry = reinterpret_cast<std::uint64_t>((*addresses)[0]);
    EXPECT_TRUE(entry >= kFarFromLibraries && entry < kFarFromLibraries + (std::uint64_t{1} << 32))
        << std::hex << entry;
    const std::array<std::uint32_t, 8> table{3, 1, 4, 1, 5, 9, 2, 6};
    std::uint32_t expected = 7;
    for (std::uint32_t i = 0; i < 1000; ++i) expected = reference_scramble(expected + table[i & 7U]);
    EXPECT_EQ(reinterpret_cast<unsigned (*)(unsigned)>((*addresses)[0])(1000), expected);
    const std::array<int, 9> picks{11, 23, 37, 41, 53, 67, 71, 89, -1};
    for (int k = 0; k < 9; ++k) EXPECT_EQ(reinterpret_cast<int (*)(int)>((*addresses)[1])(k), picks[k]) << k;
    const volatile double angle = 0.7;
    EXPECT_EQ(reinterpret_cast<double (*)(double)>((*addresses)[2])(angle), std::sin(angle));
    std::array<char, 300> from{};
    std::array<char, 300> to{};
    for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<char>(i * 7);
    reinterpret_cast<void (*)(void*, const void*, unsigned long)>((*addresses)[3])(to.data(), from.data(), from.size());
    EXPECT_EQ(to, from);
  }
}

TEST(ObjectLoader, UnitsMayDefineTheSameNamesAndLoadInParallel) {
  CxxJit* jit = compiler();
  auto linker = loader();
  if (jit == nullptr || !linker) return;
  ASSERT_TRUE(linker->load(compile_runtime(*jit), "runtime", {}, true, nullptr));
  std::array<std::optional<unsigned>, 6> results{};
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < results.size(); ++k) {
    threads.emplace_back([&, k] {
      const std::string source = "extern \"C\" unsigned value() { return rt::scramble(" + std::to_string(k) + "u); }";
      const std::array<const char*, 1> names{"value"};
      if (auto addresses = linker->load(compile_unit(*jit, source), "unit", names, false, nullptr)) {
        results[k] = reinterpret_cast<unsigned (*)()>((*addresses)[0])();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (unsigned k = 0; k < results.size(); ++k) {
    ASSERT_TRUE(results[k]) << k;
    EXPECT_EQ(*results[k], reference_scramble(k)) << k;
  }
  // Units do not export: a later unit calling `value` finds no definition.
  const std::array<const char*, 1> names{"twice"};
  std::string why_not;
  EXPECT_FALSE(linker->load(compile_unit(*jit,
                                         "extern \"C\" unsigned value(); extern \"C\" unsigned twice() { return "
                                         "2 * value(); }"),
                            "unit", names, false, &why_not));
  EXPECT_NE(why_not.find("value"), std::string::npos) << why_not;
}

TEST(ObjectLoader, RefusesWhatItDoesNotHandleWithTheReasonAndPublishesNothing) {
  CxxJit* jit = compiler();
  auto linker = loader();
  if (jit == nullptr || !linker) return;
  std::string why_not;
  const std::array<const char*, 1> bump{"bump"};
  const std::string writable =
      compile_unit(*jit, "unsigned counter = 5; extern \"C\" unsigned bump() { return ++counter; }");
  EXPECT_FALSE(linker->load(writable, "unit", bump, true, &why_not));
  EXPECT_NE(why_not.find("writable section"), std::string::npos) << why_not;
  EXPECT_TRUE(linker->exported().empty());  // nothing of a refused object is visible

  EXPECT_FALSE(
      linker->load("not an object at all, but long enough to hold a header........", "unit", bump, false, &why_not));
  EXPECT_NE(why_not.find("ELF"), std::string::npos) << why_not;
  EXPECT_FALSE(
      linker->load("\x7f"
                   "ELF",
                   "unit", bump, false, &why_not));
  EXPECT_NE(why_not.find("truncated"), std::string::npos) << why_not;

  const std::string present = compile_unit(*jit, "extern \"C\" unsigned present() { return 1; }");
  EXPECT_FALSE(linker->load(present, "unit", bump, false, &why_not));
  EXPECT_NE(why_not.find("no definition of bump"), std::string::npos) << why_not;

  // A runtime's name with no runtime loaded: not in the process either.
  const std::array<const char*, 1> mixed{"mixed"};
  EXPECT_FALSE(linker->load(compile_unit(*jit, kUnit), "unit", mixed, false, &why_not));
  EXPECT_NE(why_not.find("_ZN2rt6shared"), std::string::npos) << why_not;
}

TEST(ObjectLoader, WhatItRefusesCxxJitLinksWithJitlinkAgainstTheSharedRuntimeItLoaded) {
  CxxJit* jit = compiler();
  if (jit == nullptr) return;
    // Two runtimes of this test's own, one after the other (CxxJit links each runtime's names once
    // per process, and each publishes only its own to JITLink), and a unit that calls both.
#define WAVESTACK_TEST_BASE "namespace jt { inline namespace shared { unsigned base() { return 30; } } }\n"
#define WAVESTACK_TEST_MORE "namespace jt2 { inline namespace shared { unsigned more() { return 10; } } }\n"
  jit->load_shared(jit->compile_preamble_object(WAVESTACK_TEST_BASE));
  jit->load_shared(jit->compile_preamble_object(WAVESTACK_TEST_MORE));
  static constexpr std::string_view kBoth = WAVESTACK_TEST_BASE WAVESTACK_TEST_MORE;
#undef WAVESTACK_TEST_BASE
#undef WAVESTACK_TEST_MORE
  const std::string writable = jit->compile(
      kBoth, "unsigned counter = 1; extern \"C\" unsigned bump() { return jt::base() + jt2::more() + ++counter; }",
      OptLevel::kFast, PreambleCode::kShared);
  const std::array<const char*, 1> names{"bump"};
  auto bump = reinterpret_cast<unsigned (*)()>(jit->load(writable, names).at(0));
  EXPECT_EQ(bump(), 42U);
  EXPECT_EQ(bump(), 43U);
}

TEST(ObjectLoader, AfterAForkParentAndChildLoadWithoutChangingEachOthersCode) {
  CxxJit* jit = compiler();
  auto linker = loader();
  if (jit == nullptr || !linker) return;
  ASSERT_TRUE(linker->load(compile_runtime(*jit), "runtime", {}, true, nullptr));
  const std::array<const char*, 1> names{"value"};
  const auto unit = [&](unsigned k) {
    return compile_unit(*jit, "extern \"C\" unsigned value() { return rt::scramble(" + std::to_string(k) + "u); }");
  };
  const auto before = linker->load(unit(1), "unit", names, false, nullptr);
  ASSERT_TRUE(before);
  // Compiled before the fork: the child only links (no compiler threads to inherit).
  const std::string child_object = unit(2);
  const std::string parent_object = unit(3);
  // Both load one unit of the same size, the child's code runs only after the parent's load:
  // were they to share where new code goes, one would overwrite the other's.
  std::array<int, 2> parent_loaded{};
  ASSERT_EQ(pipe(parent_loaded.data()), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto loaded = linker->load(child_object, "unit", names, false, nullptr);
    char done = 0;
    const bool waited = read(parent_loaded[0], &done, 1) == 1;
    const bool right = waited && loaded && reinterpret_cast<unsigned (*)()>((*loaded)[0])() == reference_scramble(2) &&
                       reinterpret_cast<unsigned (*)()>((*before)[0])() == reference_scramble(1);
    _exit(right ? 0 : 1);
  }
  const auto loaded = linker->load(parent_object, "unit", names, false, nullptr);
  ASSERT_EQ(write(parent_loaded[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  close(parent_loaded[0]);
  close(parent_loaded[1]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_TRUE(loaded);
  EXPECT_EQ(reinterpret_cast<unsigned (*)()>((*loaded)[0])(), reference_scramble(3));
  EXPECT_EQ(reinterpret_cast<unsigned (*)()>((*before)[0])(), reference_scramble(1));
}

TEST(ObjectLoader, AChildForkedWhileAnotherThreadLinksCanLink) {
  CxxJit* jit = compiler();
  auto linker = loader();
  if (jit == nullptr || !linker) return;
  ASSERT_TRUE(linker->load(compile_runtime(*jit), "runtime", {}, true, nullptr));
  const std::array<const char*, 1> names{"value"};
  const std::string object = compile_unit(*jit, "extern \"C\" unsigned value() { return rt::scramble(9u); }");
  // A thread links all the time, so that forks land inside its links (in its locks).
  std::atomic<bool> stop{false};
  std::thread linking([&] {
    while (!stop.load()) (void)linker->load(object, "unit", names, false, nullptr);
  });
  int children_right = 0;
  constexpr int kForks = 40;
  for (int k = 0; k < kForks; ++k) {
    const pid_t child = fork();
    if (child == 0) {
      alarm(20);  // a child that deadlocked dies of SIGALRM instead of hanging the test
      const auto loaded = linker->load(object, "unit", names, false, nullptr);
      _exit(loaded && reinterpret_cast<unsigned (*)()>((*loaded)[0])() == reference_scramble(9) ? 0 : 1);
    }
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++children_right;
    }
  }
  stop = true;
  linking.join();
  EXPECT_EQ(children_right, kForks);
}

}  // namespace
