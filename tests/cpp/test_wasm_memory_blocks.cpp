// differing_blocks: the blocks of a memory that differ from a reference, as the cpu device's
// prefetch uses them (64-byte lines that differ from the template, as byte offsets) and as the
// template's data blocks (nonzero_block_runs: 4 KiB blocks, merged into runs).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "wasm/instances/instance_image.hpp"
#include "wasm/instances/memory_blocks.hpp"

using wavestack::wasm::differing_blocks;
using wavestack::wasm::nonzero_block_runs;

namespace {

constexpr std::size_t kLineWords = 16;

// The byte offsets of the differing 64-byte lines.
std::vector<std::uint32_t> written_lines(const std::vector<std::uint32_t>& memory,
                                         const std::vector<std::uint32_t>& reference, std::size_t max_lines,
                                         std::size_t max_words) {
  std::vector<std::uint32_t> offsets;
  for (const std::size_t line : differing_blocks(memory, reference, kLineWords, max_lines, max_words)) {
    offsets.push_back(static_cast<std::uint32_t>(line * 64));
  }
  return offsets;
}

TEST(MemoryBlocks, FindsTheLinesThatDifferFromTheTemplateInAddressOrder) {
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

TEST(MemoryBlocks, UnchangedMemoryAndRestoredDataGiveNoLines) {
  std::vector<std::uint32_t> initial(3 * kLineWords, 5u);
  EXPECT_TRUE(written_lines(initial, initial, 32, 1u << 20).empty());
  std::vector<std::uint32_t> zero(3 * kLineWords, 0u);
  EXPECT_TRUE(written_lines(zero, {}, 32, 1u << 20).empty());
}

TEST(MemoryBlocks, StopsAtTheLineLimitAndTheScanBound) {
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

TEST(MemoryBlocks, TemplateDataBlocksMergeIntoRuns) {
  constexpr std::size_t kBlock = 1024;  // 4 KiB of words
  std::vector<std::uint32_t> words(4 * kBlock + 10, 0u);
  words[5] = 1;                    // block 0
  words[kBlock + kBlock - 1] = 2;  // block 1: merged with block 0
  words[4 * kBlock + 9] = 3;       // the short last block
  const auto runs = nonzero_block_runs(words);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].count, 2 * kBlock);
  EXPECT_EQ(runs[1].first, 4 * kBlock);
  EXPECT_EQ(runs[1].count, 10u);
  EXPECT_TRUE(nonzero_block_runs(std::vector<std::uint32_t>(3 * kBlock, 0u)).empty());
}

// Runs found only where the caller says data may be: the same runs as a whole scan when the
// candidates cover every non-zero word (whole blocks, merged across candidates), none outside.
TEST(MemoryBlocks, TemplateDataBlocksWithinCandidateRanges) {
  constexpr std::size_t kBlock = 1024;
  std::vector<std::uint32_t> words(8 * kBlock, 0u);
  words[3] = 1;                 // block 0
  words[2 * kBlock - 1] = 2;    // block 1 (merges with block 0)
  words[5 * kBlock + 100] = 3;  // block 5
  words[7 * kBlock + 7] = 4;    // block 7: outside every candidate below
  using wavestack::wasm::WordRun;
  const std::vector<WordRun> candidates{{0, 10}, {kBlock + 5, kBlock - 5}, {5 * kBlock + 50, 200}};
  const auto runs = nonzero_block_runs(words, candidates);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].count, 2 * kBlock);
  EXPECT_EQ(runs[1].first, 5 * kBlock);
  EXPECT_EQ(runs[1].count, kBlock);
  words[7 * kBlock + 7] = 0;
  const auto whole = nonzero_block_runs(words);
  ASSERT_EQ(whole.size(), runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    EXPECT_EQ(whole[k].first, runs[k].first);
    EXPECT_EQ(whole[k].count, runs[k].count);
  }
  EXPECT_TRUE(nonzero_block_runs(words, std::vector<WordRun>{{3 * kBlock, 2 * kBlock}}).empty());
  EXPECT_TRUE(nonzero_block_runs(words, std::vector<WordRun>{{0, 0}}).empty());
}

}  // namespace
