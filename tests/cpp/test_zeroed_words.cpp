// runtime::ZeroedWords and populate_for_writing: large arrays are mappings of zero pages that
// commit nothing until written; populate_for_writing commits exactly the pages of a large range
// (checked with mincore), leaves their zeros, and does nothing for a small one.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/zeroed_words.hpp"

namespace {

using wavestack::runtime::populate_for_writing;
using wavestack::runtime::ZeroedWords;

constexpr std::size_t kPage = 4096;

// How many of the pages of [begin, begin + pages * kPage) are resident.
std::size_t resident_pages(const void* begin, std::size_t pages) {
  std::vector<unsigned char> flags(pages);
  EXPECT_EQ(mincore(const_cast<void*>(begin), pages * kPage, flags.data()), 0);
  std::size_t resident = 0;
  for (const unsigned char flag : flags) resident += flag & 1U;
  return resident;
}

TEST(ZeroedWords, LargeArraysCommitOnlyThePagesWrittenOrPopulated) {
  const std::size_t pages = 256;
  ZeroedWords words(pages * kPage / 4);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(words.data()) % kPage, 0U);  // a mapping of its own
  EXPECT_EQ(resident_pages(words.data(), pages), 0U);
  words[5] = 7;
  EXPECT_EQ(resident_pages(words.data(), pages), 1U);
  // 64 pages from an unaligned word of page 10: pages 10 to 74 (the range's partial last page).
  populate_for_writing(words.data() + 10 * kPage / 4 + 3, 64 * kPage);
#if defined(MADV_POPULATE_WRITE)
  EXPECT_EQ(resident_pages(words.data() + 10 * kPage / 4, 65), 65U);
  EXPECT_EQ(resident_pages(words.data(), pages), 66U);
#endif
  // A small range is left to fault as it is written.
  populate_for_writing(words.data() + 200 * kPage / 4, 8 * kPage);
  EXPECT_EQ(resident_pages(words.data() + 200 * kPage / 4, 8), 0U);
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (words[k] != (k == 5 ? 7U : 0U)) FAIL() << "word " << k << " is " << words[k];
  }
}

}  // namespace
