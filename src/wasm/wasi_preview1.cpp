#include "wasm/wasi_preview1.hpp"

#include <string>

#include "wasm/errors.hpp"

namespace wavestack::wasm {
namespace {

std::string signature_text(const std::vector<ValType>& params, const std::vector<ValType>& results) {
  std::string text = "(";
  for (std::size_t k = 0; k < params.size(); ++k) text += (k ? ", " : "") + std::string(val_type_name(params[k]));
  text += ") -> (";
  for (std::size_t k = 0; k < results.size(); ++k) text += (k ? ", " : "") + std::string(val_type_name(results[k]));
  return text + ")";
}

std::vector<WasiFunction> build_table() {
  constexpr ValType I = ValType::kI32;
  constexpr ValType L = ValType::kI64;
  const std::vector<ValType> errno_result{I};
  // (name, params); every function returns an errno except proc_exit.
  const std::vector<std::pair<std::string_view, std::vector<ValType>>> entries = {
      {"args_get", {I, I}},
      {"args_sizes_get", {I, I}},
      {"environ_get", {I, I}},
      {"environ_sizes_get", {I, I}},
      {"clock_res_get", {I, I}},
      {"clock_time_get", {I, L, I}},
      {"fd_advise", {I, L, L, I}},
      {"fd_allocate", {I, L, L}},
      {"fd_close", {I}},
      {"fd_datasync", {I}},
      {"fd_fdstat_get", {I, I}},
      {"fd_fdstat_set_flags", {I, I}},
      {"fd_fdstat_set_rights", {I, L, L}},
      {"fd_filestat_get", {I, I}},
      {"fd_filestat_set_size", {I, L}},
      {"fd_filestat_set_times", {I, L, L, I}},
      {"fd_pread", {I, I, I, L, I}},
      {"fd_prestat_get", {I, I}},
      {"fd_prestat_dir_name", {I, I, I}},
      {"fd_pwrite", {I, I, I, L, I}},
      {"fd_read", {I, I, I, I}},
      {"fd_readdir", {I, I, I, L, I}},
      {"fd_renumber", {I, I}},
      {"fd_seek", {I, L, I, I}},
      {"fd_sync", {I}},
      {"fd_tell", {I, I}},
      {"fd_write", {I, I, I, I}},
      {"path_create_directory", {I, I, I}},
      {"path_filestat_get", {I, I, I, I, I}},
      {"path_filestat_set_times", {I, I, I, I, L, L, I}},
      {"path_link", {I, I, I, I, I, I, I}},
      {"path_open", {I, I, I, I, I, L, L, I, I}},
      {"path_readlink", {I, I, I, I, I, I}},
      {"path_remove_directory", {I, I, I}},
      {"path_rename", {I, I, I, I, I, I}},
      {"path_symlink", {I, I, I, I, I}},
      {"path_unlink_file", {I, I, I}},
      {"poll_oneoff", {I, I, I, I}},
      {"proc_exit", {I}},
      {"proc_raise", {I}},
      {"sched_yield", {}},
      {"random_get", {I, I}},
      {"sock_accept", {I, I, I}},
      {"sock_recv", {I, I, I, I, I, I}},
      {"sock_send", {I, I, I, I, I}},
      {"sock_shutdown", {I, I}},
  };
  std::vector<WasiFunction> table;
  table.reserve(entries.size());
  for (const auto& [name, params] : entries) {
    table.push_back({name, params, name == "proc_exit" ? std::vector<ValType>{} : errno_result});
  }
  return table;
}

}  // namespace

std::span<const WasiFunction> wasi_preview1_functions() {
  static const std::vector<WasiFunction> table = build_table();
  return table;
}

const WasiFunction* find_wasi_function(std::string_view name) {
  for (const WasiFunction& function : wasi_preview1_functions()) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

void check_wasi_imports(const Module& module) {
  for (const Import& import : module.imports) {
    if (import.module != kWasiModule) continue;
    const std::string what = "import \"" + import.module + "\".\"" + import.name + "\"";
    if (import.kind != ExternKind::kFunction) {
      throw UnsupportedFeature(
          import.offset, "WASI",
          what + " is a " + extern_kind_name(import.kind) + "; wasi_snapshot_preview1 defines only functions");
    }
    const WasiFunction* function = find_wasi_function(import.name);
    if (function == nullptr) {
      throw UnsupportedFeature(import.offset, "WASI", what + " is not a WASI preview 1 function");
    }
    const FuncType& type = module.types.at(import.type_index);
    if (type.params != function->params || type.results != function->results) {
      throw UnsupportedFeature(import.offset, "WASI",
                               what + " has the signature " + signature_text(type.params, type.results) +
                                   "; WASI preview 1 defines " + signature_text(function->params, function->results));
    }
  }
}

}  // namespace wavestack::wasm
