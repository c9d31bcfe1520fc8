#include "runtime/spirv_aliasing.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace wavestack::runtime {
namespace {

// The few numbers of the SPIR-V specification (unified, section 3) this needs.
constexpr uint32_t kMagic = 0x07230203;
constexpr std::size_t kHeaderWords = 5;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationRestrict = 19;
constexpr uint32_t kDecorationAliased = 20;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;

}  // namespace

std::size_t mark_shared_bindings_aliased(std::vector<uint32_t>& words) {
  if (words.size() < kHeaderWords || words[0] != kMagic) throw std::invalid_argument("words: not a SPIR-V module");
  std::map<uint32_t, uint32_t> binding_of;
  std::map<uint32_t, uint32_t> set_of;
  std::set<uint32_t> decided;  // Restrict or Aliased already
  std::size_t first_decoration = 0;
  for (std::size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16U;
    const uint32_t opcode = words[at] & 0xFFFFU;
    if (count == 0 || at + count > words.size()) throw std::invalid_argument("words: a truncated instruction");
    if (opcode == kOpDecorate && count >= 3) {
      if (first_decoration == 0) first_decoration = at;
      const uint32_t target = words[at + 1];
      const uint32_t decoration = words[at + 2];
      if (decoration == kDecorationBinding && count >= 4) binding_of[target] = words[at + 3];
      if (decoration == kDecorationDescriptorSet && count >= 4) set_of[target] = words[at + 3];
      if (decoration == kDecorationRestrict || decoration == kDecorationAliased) decided.insert(target);
    }
    at += count;
  }
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> sharing;
  for (const auto& [id, binding] : binding_of) {
    const auto set = set_of.find(id);
    sharing[{set == set_of.end() ? 0U : set->second, binding}].push_back(id);
  }
  std::vector<uint32_t> added;
  for (const auto& [place, ids] : sharing) {
    if (ids.size() < 2) continue;
    for (const uint32_t id : ids) {
      if (decided.count(id) != 0) continue;
      added.insert(added.end(), {(3U << 16U) | kOpDecorate, id, kDecorationAliased});
    }
  }
  // Annotations may come in any order within their section: the new ones open it.
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(first_decoration), added.begin(), added.end());
  return added.size() / 3;
}

}  // namespace wavestack::runtime
