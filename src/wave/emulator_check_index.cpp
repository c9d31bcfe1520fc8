// check_index on the emulator: the per-dimension bounds check of multi-dimensional arrays and
// per-thread arrays. The frontend checks every index against its own dimension before it
// computes a flat offset, so a fault can name the dimension, not just the flat position.
#include <string>
#include <type_traits>

#include "wave/emulator_internal.hpp"

namespace wavestack::wave {
namespace {

template <class T>
void h_check_index(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* index = lanes<T>(w, in.a);
  const T* size = lanes<T>(w, in.b);
  const T* dim = lanes<T>(w, in.c);
  each_lane(w, [&](uint32_t l) {
    const bool negative = std::is_signed_v<T> && index[l] < T{0};
    if (negative || index[l] >= size[l]) [[unlikely]] {
      fault(w, in.line, l,
            "index " + std::to_string(index[l]) + " out of range for dimension " + std::to_string(dim[l]) +
                " of size " + std::to_string(size[l]));
    }
    d[l] = index[l];
  });
}

}  // namespace

Handler select_check_index(ScalarType type) {
  switch (type) {
    case ScalarType::I32:
      return &h_check_index<int32_t>;
    case ScalarType::U32:
      return &h_check_index<uint32_t>;
    case ScalarType::I64:
      return &h_check_index<int64_t>;
    case ScalarType::U64:
      return &h_check_index<uint64_t>;
    default:
      return nullptr;
  }
}

}  // namespace wavestack::wave
