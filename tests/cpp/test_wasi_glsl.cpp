// The WASI library as GLSL: it compiles with glslang (no device needed) as a shader that calls
// all 46 entry points with the signatures of the host's table, it compiles together with the
// interpreter shader (no name clashes), it needs neither 64-bit integers nor floats, and the
// embedded text is the same files, in the same order, that the C++ build includes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/disk_cache.hpp"
#include "runtime/shader_compiler.hpp"
#include "wasm/device/interpreter_glsl.hpp"
#include "wasm/device/numerics_glsl.hpp"
#include "wasm/device/wasi_glsl.hpp"
#include "wasm/wasi/wasi_signatures.hpp"

namespace {

using namespace wavestack;

// A call of every entry point, built from the signature table: compiling it checks that the
// table and the GLSL functions agree.
std::string call_every_entry_point() {
  std::string body;
  for (const wasm::WasiSignature& s : wasm::wasi_signatures()) {
    std::string call =
        "  { uint progress = 0u; uvec2 advance = uvec2(0u, 0u); acc ^= wasi_" + std::string(s.name) + "(";
    std::string args;
    std::uint32_t k = 0;
    for (char p : s.params) {
      if (!args.empty()) args += ", ";
      const std::string word = "wasi_get(" + std::to_string(k++) + "u)";
      args += p == 'I' ? "uvec2(" + word + ", 0u)" : word;
    }
    auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
    if (s.takes_now) add("now");
    if (s.advances_clock) add("advance");
    if (s.resumable) {
      add("budget");
      add("progress");
    }
    call += args + "); acc ^= progress ^ advance.x; }\n";
    body += call;
  }
  return body;
}

const char* const kStandaloneAccessors = R"glsl(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer WasiRegion { uint region_words[]; };
layout(std430, binding = 1) buffer GuestMemory { uint guest_words[]; };
layout(std430, binding = 2) buffer Results { uint results[]; };
layout(push_constant) uniform Push { uint region_stride; uint memory_bytes; uint budget; uint now_lo; } push;
uint region_base = 0u;
uint guest_base = 0u;
uint wasi_get(uint w) { return region_words[region_base + w]; }
void wasi_set(uint w, uint v) { region_words[region_base + w] = v; }
uint memory_size_bytes() { return push.memory_bytes; }
uint memory_byte(uint addr) { return (guest_words[guest_base + (addr >> 2u)] >> ((addr & 3u) * 8u)) & 0xFFu; }
void memory_set_byte(uint addr, uint v) {
  uint w = guest_base + (addr >> 2u);
  uint shift = (addr & 3u) * 8u;
  guest_words[w] = (guest_words[w] & ~(0xFFu << shift)) | ((v & 0xFFu) << shift);
}
)glsl";

std::string standalone_shader() {
  std::string source =
      "#version 450\n" + wasm::device::numerics_glsl() + kStandaloneAccessors + wasm::device::wasi_glsl();
  source += "void main() {\n  region_base = gl_GlobalInvocationID.x * push.region_stride;\n";
  source += "  guest_base = gl_GlobalInvocationID.x * (push.memory_bytes >> 2u);\n";
  source += "  uvec2 now = uvec2(push.now_lo, 0u);\n  uint budget = push.budget;\n  uint acc = 0u;\n";
  source += call_every_entry_point();
  source += "  results[gl_GlobalInvocationID.x] = acc;\n}\n";
  return source;
}

std::vector<uint32_t> capabilities(const std::vector<uint32_t>& words) {
  constexpr uint32_t kOpCapability = 17;
  std::vector<uint32_t> caps;
  for (std::size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if ((words[i] & 0xFFFFu) == kOpCapability) caps.push_back(words[i + 1]);
    if (count == 0) break;
    i += count;
  }
  return caps;
}

runtime::ShaderBinary compile(const std::string& source) {
  runtime::ShaderOptions options;
  options.target = runtime::VulkanTarget::Vulkan1_1;
  options.optimize = false;
  return runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "wasi-device-tests");
}

TEST(WasiGlsl, CompilesAndCallsEveryEntryPoint) {
  const std::string source = standalone_shader();
  for (const wasm::WasiSignature& s : wasm::wasi_signatures()) {
    EXPECT_NE(source.find("wasi_" + std::string(s.name) + "("), std::string::npos) << s.name;
  }
  runtime::ShaderBinary binary;
  ASSERT_NO_THROW(binary = compile(source));
  const std::vector<uint32_t> caps = capabilities(binary.words);
  ASSERT_FALSE(caps.empty());
  constexpr uint32_t kCapabilityFloat64 = 10;
  constexpr uint32_t kCapabilityInt64 = 11;
  for (uint32_t cap : caps) {
    EXPECT_NE(cap, kCapabilityFloat64);
    EXPECT_NE(cap, kCapabilityInt64);
  }
}

TEST(WasiGlsl, PathCallsCompileThroughOneCallSite) {
  // The compact form for a service shader: every path call through one wasi_path_op call.
  std::string source =
      "#version 450\n" + wasm::device::numerics_glsl() + kStandaloneAccessors + wasm::device::wasi_glsl();
  source += R"glsl(
void main() {
  uint progress = 0u;
  uint op = wasi_get(0u) - WASI_PATH_OP_BASE_ID;
  results[0] = wasi_path_op(op, wasi_get(1u), wasi_get(2u), wasi_get(3u), wasi_get(4u), wasi_get(5u), wasi_get(6u),
                            wasi_get(7u), wasi_get(8u), wasi_get(9u), wasi_get(10u), uvec2(wasi_get(11u), 0u),
                            uvec2(wasi_get(12u), 0u), uvec2(push.now_lo, 0u), push.budget, progress) ^ progress;
}
)glsl";
  EXPECT_NO_THROW((void)compile(source));
}

TEST(WasiGlsl, CompilesInsideTheInterpreterShader) {
  // The integrator's situation: the library after the interpreter's files (which define the
  // guest memory accessors) and a region accessor, before main(). A clash of names fails here.
  // Parts the interpreter shader already carries (the integration under way may include the
  // layout and the region accessors) are not added twice.
  std::string source = wasm::device::interpreter_shader_source();
  const std::size_t main_at = source.find("void main()");
  ASSERT_NE(main_at, std::string::npos);
  std::string wasi;
  if (source.find("uint wasi_get(uint w)") == std::string::npos) {
    wasi += R"glsl(
layout(std430, binding = 7) buffer WasiRegionBuffer { uint wasi_region_words[]; };
uint wasi_region_base = 0u;
uint wasi_get(uint w) { return wasi_region_words[wasi_region_base + w]; }
void wasi_set(uint w, uint v) { wasi_region_words[wasi_region_base + w] = v; }
)glsl";
  }
  for (std::string_view name : wasm::device::wasi_glsl_files()) {
    const std::string_view text = wasm::device::wasi_glsl_file(name);
    if (source.find(text) == std::string::npos) wasi += std::string(text) + "\n";
  }
  source.insert(main_at, wasi);
  EXPECT_NO_THROW((void)compile(source));
}

// A service pipeline's SPIR-V carries its function's code, not the library's: lavapipe took the
// whole library in for every function called (about 4 s each, in every process).
TEST(WasiGlsl, AServicePipelineHoldsOnlyItsFunction) {
  const std::string source = wasm::device::wasi_service_shader_source();
  const auto service = [&](std::string_view function) {
    const auto& signatures = wasm::wasi_signatures();
    const auto found = std::find_if(signatures.begin(), signatures.end(),
                                    [&](const wasm::WasiSignature& s) { return s.name == function; });
    EXPECT_NE(found, signatures.end()) << function;
    runtime::ShaderOptions options;
    options.target = runtime::VulkanTarget::Vulkan1_1;
    options.defines.emplace_back("WASI_SERVICE_FUNCTION", std::to_string(found->id));
    const runtime::ShaderBinary binary =
        runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "wasi-service-tests");
    // The debug names glslang emits (OpName) say which functions are there.
    return std::string(reinterpret_cast<const char*>(binary.words.data()), binary.words.size() * 4);
  };
  const std::string close = service("fd_close");
  const std::string write = service("fd_write");
  EXPECT_NE(close.find("wasi_fd_close("), std::string::npos);
  EXPECT_EQ(close.find("wasi_fd_write("), std::string::npos);
  EXPECT_EQ(close.find("wasi_path_open("), std::string::npos);
  EXPECT_NE(write.find("wasi_fd_write("), std::string::npos);
  EXPECT_EQ(write.find("wasi_fd_close("), std::string::npos);
  EXPECT_LT(close.size(), std::size_t{100'000});  // the library whole: about 295 KB
}

TEST(WasiGlsl, GlobalNamesArePrefixed) {
  const std::string all = wasm::device::wasi_glsl();
  const std::regex declaration(
      R"(^(?:const\s+)?(?:struct\s+|[A-Za-z_][A-Za-z0-9_]*\s+)([A-Za-z_][A-Za-z0-9_]*)\s*(?:[=({;]|$))");
  std::istringstream lines(all);
  std::string line;
  int found = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == ' ' || line[0] == '/' || line[0] == '}' || line[0] == '#') continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, declaration)) << line;
    const std::string name = m[1];
    ++found;
    EXPECT_TRUE(name.rfind("wasi_", 0) == 0 || name.rfind("WASI_", 0) == 0 || name.rfind("Wasi", 0) == 0) << line;
  }
  EXPECT_GT(found, 300);
  // Only // comments and no string literals (so a compact form could strip comments), and no
  // 64-bit or floating-point types.
  EXPECT_EQ(all.find("/*"), std::string::npos);
  const std::string code = std::regex_replace(all, std::regex("//[^\n]*"), "");
  EXPECT_EQ(code.find('"'), std::string::npos);
  EXPECT_FALSE(std::regex_search(code, std::regex(R"(\b(float|double|int64_t|uint64_t|dvec[234]|vec[234])\b)")));
}

TEST(WasiGlsl, EmbeddedFilesMatchTheCppBuild) {
  const std::vector<std::string_view> files = wasm::device::wasi_glsl_files();
  ASSERT_EQ(files.size(), 13u);
  const std::string all = wasm::device::wasi_glsl();
  std::size_t at = 0;
  for (std::string_view name : files) {
    const std::string_view text = wasm::device::wasi_glsl_file(name);
    ASSERT_FALSE(text.empty()) << name;
    const std::size_t found = all.find(text, at);
    EXPECT_EQ(found, at) << name;  // concatenated in this order
    at = found + text.size() + 1;
    std::ifstream disk(std::string(WAVESTACK_SOURCE_DIR) + "/src/wasm/device/" + std::string(name));
    std::stringstream content;
    content << disk.rdbuf();
    EXPECT_EQ(content.str(), text) << name;
  }
  EXPECT_TRUE(wasm::device::wasi_glsl_file("missing.glsl").empty());
  // wasi_library.hpp (the C++ build) includes the same files in the same order.
  std::ifstream header(std::string(WAVESTACK_SOURCE_DIR) + "/src/wasm/device/wasi_library.hpp");
  std::string line;
  std::vector<std::string> included;
  while (std::getline(header, line)) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(#include "wasm/device/(wasi_[a-z0-9_]+\.glsl)\")"))) {
      included.push_back(m[1]);
    }
  }
  ASSERT_EQ(included.size(), files.size());
  for (std::size_t k = 0; k < files.size(); ++k) EXPECT_EQ(included[k], files[k]);
}

}  // namespace
