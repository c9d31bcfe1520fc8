// written_lines: the cache lines of an instance's memory that differ from the template, which
// the cpu device prefetches in the instances a pass runs next.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "wasm/cpu_memory_lines.hpp"

using wavestack::wasm::written_lines;

namespace {

constexpr std::size_t kLineWords = 16;

TEST(CpuMemoryLines, FindsTheLinesThatDifferFromTheTemplateInAddressOrder) {
  std::vector<std::uint32_t> initial(4 * kLineWords, 0u);  // the template: 4 lines
  initial[kLineWords + 3] = 7;                             // a data segment's word in line 1
  std::vector<std::uint32_t> memory(6 * kLineWords, 0u);   // the memory: 6 lines
  memory[kLineWords + 3] = 8;                              // the data word overwritten
  memory[2 * kLineWords + 15] = 1;                         // the last word of line 2
  memory[5 * kLineWords] = 9;                              // line 5, beyond the template
  EXPECT_EQ(written_lines(memory, initial, 32, 1u << 20), (std::vector<std::uint32_t>{64, 128, 320}));
  memory[kLineWords + 3] = 7;  // back to the template's value: line 1 is no longer written
  EXPECT_EQ(written_lines(memory, initial, 32, 1u << 20), (std::vector<std::uint32_t>{128, 320}));
}

TEST(CpuMemoryLines, UnchangedMemoryAndRestoredDataGiveNoLines) {
  std::vector<std::uint32_t> initial(3 * kLineWords, 5u);
  EXPECT_TRUE(written_lines(initial, initial, 32, 1u << 20).empty());
  std::vector<std::uint32_t> zero(3 * kLineWords, 0u);
  EXPECT_TRUE(written_lines(zero, {}, 32, 1u << 20).empty());
}

TEST(CpuMemoryLines, StopsAtTheLineLimitAndTheScanBound) {
  std::vector<std::uint32_t> memory(10 * kLineWords, 1u);
  EXPECT_EQ(written_lines(memory, {}, 3, 1u << 20), (std::vector<std::uint32_t>{0, 64, 128}));
  // Only the first 20 words are compared: line 0 and the first 4 words of line 1.
  std::vector<std::uint32_t> late(10 * kLineWords, 0u);
  late[kLineWords + 4] = 1;
  late[9 * kLineWords] = 1;
  EXPECT_TRUE(written_lines(late, {}, 32, 20).empty());
  late[kLineWords + 3] = 1;
  EXPECT_EQ(written_lines(late, {}, 32, 20), (std::vector<std::uint32_t>{64}));
}

}  // namespace
