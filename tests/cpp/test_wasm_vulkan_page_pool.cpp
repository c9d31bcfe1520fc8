// Paged memory's host-side layout (src/wasm/instances/vulkan_page_pool.hpp): every page of the
// reservation starts shared, pages holding initial data map to frames holding exactly that data,
// the pool's allocation words, and the setting that forces paged memory.
#include <gtest/gtest.h>

#include <string>

#include "runtime/error.hpp"
#include "wasm/instances/vulkan_page_pool.hpp"

namespace wavestack::wasm {
namespace {

InstanceImage image_with_data() {
  InstanceImage image;
  image.memory_words = 2 * 16384;  // two pages reserved: 32 frames
  image.memory.assign(16384, 0);   // one initial page: data in its 1st and 4th 4 KiB blocks
  image.memory[5] = 0xAB;
  image.memory[3 * kFrameWords + 1023] = 7;
  image.memory_nonzero_runs = nonzero_block_runs(image.memory);
  return image;
}

TEST(WasmVulkanPagePool, PagesWithDataShareTheirTemplateFrameAndTheRestTheZeroFrame) {
  const PagePoolLayout layout = page_pool_layout(image_with_data());
  ASSERT_EQ(layout.table_entries, 32U);
  ASSERT_EQ(layout.state_suffix.size(), 33U);
  EXPECT_EQ(layout.state_suffix[0], 0U);  // the fault word
  EXPECT_EQ(layout.state_suffix[1], kFirstTemplateFrame | kPageShared);
  EXPECT_EQ(layout.state_suffix[1 + 3], (kFirstTemplateFrame + 1) | kPageShared);
  for (std::uint32_t page : {1U, 2U, 4U, 31U}) EXPECT_EQ(layout.state_suffix[1 + page], kZeroFrame | kPageShared);
  ASSERT_EQ(layout.first_free_frame(), kFirstTemplateFrame + 2);
  EXPECT_EQ(layout.fixed_frames[kFirstTemplateFrame * kFrameWords + 5], 0xABU);
  EXPECT_EQ(layout.fixed_frames[(kFirstTemplateFrame + 2) * kFrameWords - 1], 7U);
  for (std::uint32_t w = 0; w < kFrameWords; ++w) ASSERT_EQ(layout.fixed_frames[kZeroFrame * kFrameWords + w], 0U);
}

TEST(WasmVulkanPagePool, APoolStartsAllocatingAfterItsFixedFrames) {
  const PagePoolLayout layout = page_pool_layout(image_with_data());
  const auto words = pool_fixed_frames(layout, 100);
  EXPECT_EQ(words[kPoolNextFrameWord], layout.first_free_frame());
  EXPECT_EQ(words[kPoolFramesWord], 100U);
  EXPECT_EQ(words.size(), layout.fixed_frames.size());
}

TEST(WasmVulkanPagePool, TheSettingForcesPagedMemoryOrLeavesTheChoiceToTheSpawn) {
  EXPECT_FALSE(paged_memory_forced(nullptr));
  EXPECT_FALSE(paged_memory_forced(""));
  EXPECT_FALSE(paged_memory_forced("auto"));
  EXPECT_TRUE(paged_memory_forced("paged"));
  try {
    (void)paged_memory_forced("dense");
    FAIL() << "expected an error";
  } catch (const runtime::InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("WAVESTACK_WASM_VULKAN_MEMORY"), std::string::npos);
  }
}

}  // namespace
}  // namespace wavestack::wasm
