#include "wasm/wasi/wasi_signatures.hpp"

#include <algorithm>
#include <array>

namespace wavestack::wasm {
namespace {

// name, params, results, now, resumable, advances_clock (id = position).
struct Row {
  std::string_view name;
  std::string_view params;
  std::string_view results;
  bool takes_now;
  bool resumable;
  bool advances_clock;
};

constexpr std::array<Row, 46> kRows{{
    {"args_get", "ii", "i", false, true, false},
    {"args_sizes_get", "ii", "i", false, false, false},
    {"environ_get", "ii", "i", false, true, false},
    {"environ_sizes_get", "ii", "i", false, false, false},
    {"clock_res_get", "ii", "i", false, false, false},
    {"clock_time_get", "iIi", "i", true, false, false},
    {"fd_advise", "iIIi", "i", false, false, false},
    {"fd_allocate", "iII", "i", true, true, false},
    {"fd_close", "i", "i", false, false, false},
    {"fd_datasync", "i", "i", false, false, false},
    {"fd_fdstat_get", "ii", "i", false, false, false},
    {"fd_fdstat_set_flags", "ii", "i", false, false, false},
    {"fd_fdstat_set_rights", "iII", "i", false, false, false},
    {"fd_filestat_get", "ii", "i", false, false, false},
    {"fd_filestat_set_size", "iI", "i", true, true, false},
    {"fd_filestat_set_times", "iIIi", "i", true, false, false},
    {"fd_pread", "iiiIi", "i", false, true, false},
    {"fd_prestat_get", "ii", "i", false, false, false},
    {"fd_prestat_dir_name", "iii", "i", false, true, false},
    {"fd_pwrite", "iiiIi", "i", true, true, false},
    {"fd_read", "iiii", "i", false, true, false},
    {"fd_readdir", "iiiIi", "i", false, true, false},
    {"fd_renumber", "ii", "i", false, false, false},
    {"fd_seek", "iIii", "i", false, false, false},
    {"fd_sync", "i", "i", false, false, false},
    {"fd_tell", "ii", "i", false, false, false},
    {"fd_write", "iiii", "i", true, true, false},
    {"path_create_directory", "iii", "i", true, true, false},
    {"path_filestat_get", "iiiii", "i", false, true, false},
    {"path_filestat_set_times", "iiiiIIi", "i", true, true, false},
    {"path_link", "iiiiiii", "i", true, true, false},
    {"path_open", "iiiiiIIii", "i", true, true, false},
    {"path_readlink", "iiiiii", "i", false, true, false},
    {"path_remove_directory", "iii", "i", true, true, false},
    {"path_rename", "iiiiii", "i", true, true, false},
    {"path_symlink", "iiiii", "i", true, true, false},
    {"path_unlink_file", "iii", "i", true, true, false},
    {"poll_oneoff", "iiii", "i", true, true, true},
    {"proc_exit", "i", "", false, false, false},
    {"proc_raise", "i", "i", false, false, false},
    {"sched_yield", "", "i", false, false, false},
    {"random_get", "ii", "i", false, true, false},
    {"sock_accept", "iii", "i", false, false, false},
    {"sock_recv", "iiiiii", "i", false, false, false},
    {"sock_send", "iiiii", "i", false, false, false},
    {"sock_shutdown", "ii", "i", false, false, false},
}};

constexpr std::array<WasiSignature, kRows.size()> make_table() {
  std::array<WasiSignature, kRows.size()> table{};
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    const Row& row = kRows[i];
    table[i] = WasiSignature{static_cast<std::uint32_t>(i),
                             row.name,
                             row.params,
                             row.results,
                             row.takes_now,
                             row.resumable,
                             row.advances_clock};
  }
  return table;
}

constexpr std::array<WasiSignature, kRows.size()> kTable = make_table();

ValType letter_type(char letter) {
  return letter == 'I' ? ValType::kI64 : ValType::kI32;
}

}  // namespace

std::span<const WasiSignature> wasi_signatures() {
  return kTable;
}

const WasiSignature* find_wasi_signature(std::string_view name) {
  const auto* it = std::find_if(kTable.begin(), kTable.end(), [&](const WasiSignature& s) { return s.name == name; });
  return it == kTable.end() ? nullptr : &*it;
}

FuncType wasi_func_type(const WasiSignature& signature) {
  FuncType type;
  for (char letter : signature.params) type.params.push_back(letter_type(letter));
  for (char letter : signature.results) type.results.push_back(letter_type(letter));
  return type;
}

}  // namespace wavestack::wasm
