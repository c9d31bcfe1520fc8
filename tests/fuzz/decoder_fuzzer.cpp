// libFuzzer target over the decoder and validator: every input goes to load_module, the
// entry the Python binding calls (decode, validate, check the imports and WASI signatures).
// Any input may be refused, but only with one of the three typed errors of errors.hpp, at an
// offset inside the input; anything else (another exception, a crash, a sanitizer report,
// a leak, a hang) is a finding, so the harness aborts on it and libFuzzer saves the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

#include "wasm/load/loader.hpp"
#include "wasm/module/errors.hpp"

namespace {

// Both host modules the Python API knows, so that the spec's `spectest` imports get past
// check_imports and the WASI imports reach their signature check.
const wavestack::wasm::LoadOptions& fuzz_options() {
  static const wavestack::wasm::LoadOptions options{{"wasi_snapshot_preview1", "spectest"}};
  return options;
}

[[noreturn]] void finding(const char* what, const char* detail) {
  std::fprintf(stderr, "decoder_fuzzer: %s: %s\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

// The offset names the byte where the problem was found; the end of the input is the
// furthest a decoder can get (a truncated section is reported there).
void check_offset(const wavestack::wasm::ModuleError& error, std::size_t size) {
  if (error.offset() > size) finding("error offset past the end of the input", error.what());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wavestack::wasm;
  try {
    const Module module = load_module(data, size, fuzz_options());
    static_cast<void>(module);
  } catch (const MalformedModule& error) {
    check_offset(error, size);
  } catch (const InvalidModule& error) {
    check_offset(error, size);
  } catch (const UnsupportedFeature& error) {
    check_offset(error, size);
  } catch (const std::exception& error) {
    finding(typeid(error).name(), error.what());
  } catch (...) {
    finding("exception of a type not derived from std::exception", "");
  }
  return 0;
}
