// The f64 variable types of compiled units on the cpu device (src/wasm/device/
// host_f64_variables.hpp) against the software library, bit for bit: chains of raw operations,
// whose canonical-NaN rule is applied only where a value leaves the chain, give exactly the
// library's chain (each of its operations canonical), over special values, seeded random
// operands and raw bit patterns (NaN payloads of every kind); the comparisons with raw operands
// are the library's; and the places where the rule must not apply (a local's value copied with
// its payload) or must (a raw value stored, assigned, selected against bits) do what the
// header promises.
#include <gtest/gtest.h>

#include <bit>
#include <concepts>
#include <cstdint>
#include <vector>

#include "numerics_test_support.hpp"

namespace wavestack::wasm::device {
namespace {
#include "wasm/device/host_f64_variables.hpp"
}  // namespace
}  // namespace wavestack::wasm::device

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

#if defined(WASM_HOST_IEEE) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

// Four operands per case: specials crossed in rotation, then random values and raw patterns.
template <typename Check>
void f64_quads(Check check) {
  const std::vector<uint64_t> specials = f64_specials();
  const size_t n = specials.size();
  for (size_t i = 0; i < n * 4; ++i) {
    check(specials[i % n], specials[(i * 7 + 1) % n], specials[(i * 13 + 2) % n], specials[(i * 31 + 3) % n]);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases / 4; ++i) {
    auto next = [&](int k) { return (i + k) % 6 == 0 ? random.bits64() : random.f64(); };
    check(next(0), next(1), next(2), next(3));
  }
}

// (sqrt(a * b + c) - d) / a, and its comparisons with d: every raw operation, with raw results
// feeding raw operations, against the library's operations one at a time.
TEST(HostF64Variables, RawChainsEqualTheLibrarysChainBitForBit) {
  Mismatches chain("raw chain"), compare("raw comparisons");
  f64_quads([&](uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    const uvec2 ua = to_uvec2(a), ub = to_uvec2(b), uc = to_uvec2(c), ud = to_uvec2(d);
    const uvec2 expected = device::f64_div_soft(
        device::f64_sub_soft(device::f64_sqrt_soft(device::f64_add_soft(device::f64_mul_soft(ua, ub), uc)), ud), ua);
    const device::HostF64 local_a(ua);  // a local's value: any bits, kept as they are
    const device::HostF64Raw product = device::f64_mul_raw(local_a, ub);
    const device::HostF64Raw root = device::f64_sqrt_raw(device::f64_add_raw(product, uc));
    const device::HostF64Raw result = device::f64_div_raw(device::f64_sub_raw(root, ud), local_a);
    const uvec2 got = result;  // where the value leaves the chain: the rule applies
    NUMERICS_CHECK(chain, to_u64(got) == to_u64(expected),
                   "a=" + hex64(a) + " b=" + hex64(b) + " c=" + hex64(c) + " d=" + hex64(d) + " got " +
                       hex64(to_u64(got)) + " expected " + hex64(to_u64(expected)));
    const uvec2 canonical_root = root;
    const uint got_compares[] = {device::f64_eq(root, ud), device::f64_ne(root, ud),      device::f64_lt(root, ud),
                                 device::f64_gt(ud, root), device::f64_le(root, local_a), device::f64_ge(root, root)};
    const uint expected_compares[] = {
        device::f64_eq_soft(canonical_root, ud), device::f64_ne_soft(canonical_root, ud),
        device::f64_lt_soft(canonical_root, ud), device::f64_gt_soft(ud, canonical_root),
        device::f64_le_soft(canonical_root, ua), device::f64_ge_soft(canonical_root, canonical_root)};
    for (int k = 0; k < 6; ++k) {
      NUMERICS_CHECK(compare, got_compares[k] == expected_compares[k],
                     "comparison " + std::to_string(k) + " of sqrt(a*b+c)=" + hex64(to_u64(canonical_root)) +
                         " with d=" + hex64(d) + " a=" + hex64(a));
    }
  });
}

// A NaN made by the hardware (x86-64 invents a negative one) becomes the canonical NaN wherever
// it leaves a chain; a NaN with a payload that a local holds (from memory, a reinterpretation)
// keeps its bits through copies, assignments and conversions.
TEST(HostF64Variables, TheNanRuleAppliesWhereARawValueLeavesAndNowhereElse) {
  const uint64_t canonical = 0x7FF8000000000000ULL;
  const uvec2 zero = to_uvec2(0), infinity = to_uvec2(0x7FF0000000000000ULL);
  const device::HostF64Raw invented = device::f64_div_raw(zero, zero);
  EXPECT_TRUE(__builtin_isnan(invented.value));

  const uvec2 stored = invented;
  EXPECT_EQ(to_u64(stored), canonical);
  device::HostF64 local;
  local = invented;
  EXPECT_EQ(to_u64(uvec2(local)), canonical);
  const device::HostF64 initialised = device::f64_sub_raw(infinity, infinity);
  EXPECT_EQ(to_u64(uvec2(initialised)), canonical);
  const bool pick_raw = true;  // the conditional's type is what is tested: it must be uvec2
  const uvec2 selected_against_bits = pick_raw ? invented : zero;
  EXPECT_EQ(to_u64(selected_against_bits), canonical);
  const uvec2 selected_against_local = pick_raw ? invented : local;
  EXPECT_EQ(to_u64(selected_against_local), canonical);

  for (const uint64_t payload : {0xFFF8000000000000ULL, 0x7FF0000000000001ULL, 0x7FF4000000000000ULL,
                                 0xFFFFFFFFFFFFFFFFULL, 0x7FF8000000000001ULL}) {
    device::HostF64 kept(to_uvec2(payload));
    const device::HostF64 copy = kept;
    EXPECT_EQ(to_u64(uvec2(copy)), payload) << hex64(payload);
    kept = to_uvec2(payload);
    EXPECT_EQ(to_u64(uvec2(kept)), payload) << hex64(payload);
    // ... until a raw operation uses it: its result is a NaN, and canonical when it leaves.
    const uvec2 sum = device::f64_add_raw(kept, zero);
    EXPECT_EQ(to_u64(sum), canonical) << hex64(payload);
  }
}

#endif

}  // namespace
