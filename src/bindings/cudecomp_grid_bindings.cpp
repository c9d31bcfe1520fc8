// Native Handle and GridDesc objects. Arrays arrive already checked by the Python package;
// sizes are checked again here (in bytes) so that no call through _native can overrun a
// buffer. The GIL is released while ranks communicate.
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "bindings/cudecomp_bindings.hpp"
#include "cudecomp.h"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/create_grid.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "decomp/managed_workspace.hpp"

namespace nb = nanobind;
namespace decomp = wavestack::decomp;

namespace wavestack::bindings {
namespace {

using Bytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ReadArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using WriteArray = nb::ndarray<nb::c_contig, nb::device::cpu>;
using Int3 = std::array<int64_t, 3>;

class GridObject;

struct HandleState {
  std::unique_ptr<decomp::Handle> core;
  std::set<GridObject*> grids;
};

[[noreturn]] void fail(const std::string& message) {
  throw decomp::DecompError(CUDECOMP_RESULT_INVALID_USAGE, message);
}

template <typename T>
void copy_struct(const Bytes& bytes, T& out, const char* argument) {
  if (bytes.size() != sizeof(T)) fail(std::string(argument) + ": storage has the wrong size");
  std::memcpy(&out, bytes.data(), sizeof(T));
}

void check_bytes(size_t have, int64_t elements, size_t elem, const char* argument) {
  if (elements < 0 || have < static_cast<size_t>(elements) * elem) {
    fail(std::string(argument) + ": buffer of " + std::to_string(have) + " bytes is smaller than the " +
         std::to_string(static_cast<size_t>(elements) * elem) + " bytes required");
  }
}

class GridObject {
 public:
  GridObject(std::shared_ptr<HandleState> handle, std::unique_ptr<decomp::GridDesc> core)
      : handle_(std::move(handle)), core_(std::move(core)) {
    handle_->grids.insert(this);
  }
  ~GridObject() { destroy(); }

  // `report`: print the performance report first (GridDesc.destroy, collective, as
  // cudecompGridDescDestroy does); not when a finalize or the garbage collector destroys it,
  // which need not happen on every rank at once.
  void destroy(bool report = false) {
    if (report && core_) {
      nb::gil_scoped_release release;
      core_->print_performance_report();
    }
    if (handle_) handle_->grids.erase(this);
    core_.reset();
  }
  bool alive() const { return core_ != nullptr; }
  const decomp::GridDesc& core() const {
    if (!core_) fail("the grid descriptor was destroyed (or its handle finalized)");
    return *core_;
  }

  nb::bytes config_bytes() const {
    const auto& config = core().config();
    return nb::bytes(reinterpret_cast<const char*>(&config), sizeof(config));
  }

  nb::dict pencil_info(int axis, Int3 halo, Int3 padding) const {
    const cudecompPencilInfo_t info = core().pencil_info(axis, halo, padding);
    nb::dict out;
    out["shape"] = nb::make_tuple(info.shape[0], info.shape[1], info.shape[2]);
    out["lo"] = nb::make_tuple(info.lo[0], info.lo[1], info.lo[2]);
    out["hi"] = nb::make_tuple(info.hi[0], info.hi[1], info.hi[2]);
    out["order"] = nb::make_tuple(info.order[0], info.order[1], info.order[2]);
    out["halo_extents"] = nb::make_tuple(info.halo_extents[0], info.halo_extents[1], info.halo_extents[2]);
    out["padding"] = nb::make_tuple(info.padding[0], info.padding[1], info.padding[2]);
    out["size"] = info.size;
    return out;
  }

  void transpose(int op, const ReadArray& input, const WriteArray& output, std::optional<WriteArray> work,
                 cudecompDataType_t dtype, Int3 input_halo, Int3 output_halo, Int3 input_padding,
                 Int3 output_padding) const {
    if (op < 0 || op > 3) fail("op: must be 0..3");
    const auto& grid = core();
    const auto transpose_op = static_cast<decomp::TransposeOp>(op);
    const size_t elem = static_cast<size_t>(decomp::data_type_size(dtype));
    decomp::TransposeArgs args;
    args.input = input.data();
    args.output = output.data();
    args.work = work ? work->data() : nullptr;
    args.dtype = dtype;
    args.input_halo = input_halo;
    args.output_halo = output_halo;
    args.input_padding = input_padding;
    args.output_padding = output_padding;
    grid.check_transpose(transpose_op, args);
    check_bytes(input.nbytes(), grid.layout(decomp::input_axis(transpose_op), input_halo, input_padding).size, elem,
                "input");
    check_bytes(output.nbytes(), grid.layout(decomp::output_axis(transpose_op), output_halo, output_padding).size, elem,
                "out");
    if (grid.transpose_needs_work(transpose_op, args)) {
      check_bytes(work ? work->nbytes() : 0, grid.transpose_workspace_size(), elem, "work");
    }
    nb::gil_scoped_release release;
    grid.transpose(transpose_op, args);
  }

  void update_halos(int axis, const WriteArray& data, std::optional<WriteArray> work, cudecompDataType_t dtype,
                    Int3 halo, std::array<bool, 3> periods, int dim, Int3 padding) const {
    const auto& grid = core();
    const size_t elem = static_cast<size_t>(decomp::data_type_size(dtype));
    decomp::HaloArgs args;
    args.axis = axis;
    args.data = data.data();
    args.work = work ? work->data() : nullptr;
    args.dtype = dtype;
    args.halo = halo;
    args.periods = periods;
    args.dim = dim;
    args.padding = padding;
    grid.check_halo(args);
    check_bytes(data.nbytes(), grid.layout(axis, halo, padding).size, elem, "data");
    if (work) check_bytes(work->nbytes(), grid.halo_workspace_size(axis, halo), elem, "work");
    nb::gil_scoped_release release;
    grid.update_halos(args);
  }

  // The GPU build's entry points: raw addresses from the CUDA array interface and a stream
  // handle. The Python layer checked shapes, dtypes and sizes from the interface; the core runs
  // the operation where `input` lives (device_dispatch.hpp), so host addresses also work, which
  // is how this path is tested without a GPU. A zero `work` takes the grid's managed workspace.
  void transpose_ptr(int op, uintptr_t input, uintptr_t output, uintptr_t work, cudecompDataType_t dtype,
                     Int3 input_halo, Int3 output_halo, Int3 input_padding, Int3 output_padding,
                     uintptr_t stream) const {
    if (op < 0 || op > 3) fail("op: must be 0..3");
    const auto& grid = core();
    const auto transpose_op = static_cast<decomp::TransposeOp>(op);
    const size_t elem = static_cast<size_t>(decomp::data_type_size(dtype));
    decomp::TransposeArgs args;
    args.input = reinterpret_cast<const void*>(input);
    args.output = reinterpret_cast<void*>(output);
    args.dtype = dtype;
    args.input_halo = input_halo;
    args.output_halo = output_halo;
    args.input_padding = input_padding;
    args.output_padding = output_padding;
    const auto device = decomp::device_mover_for(args.input, reinterpret_cast<cudaStream_t>(stream));
    args.mover = device.get();
    const auto bytes = static_cast<size_t>(grid.transpose_workspace_size()) * elem;
    args.work = workspace_.resolve(reinterpret_cast<void*>(work), bytes, device != nullptr);
    grid.check_transpose(transpose_op, args);
    nb::gil_scoped_release release;
    grid.transpose(transpose_op, args);
  }

  void update_halos_ptr(int axis, uintptr_t data, uintptr_t work, cudecompDataType_t dtype, Int3 halo,
                        std::array<bool, 3> periods, int dim, Int3 padding, uintptr_t stream) const {
    const auto& grid = core();
    const size_t elem = static_cast<size_t>(decomp::data_type_size(dtype));
    decomp::HaloArgs args;
    args.axis = axis;
    args.data = reinterpret_cast<void*>(data);
    args.dtype = dtype;
    args.halo = halo;
    args.periods = periods;
    args.dim = dim;
    args.padding = padding;
    const auto device = decomp::device_mover_for(args.data, reinterpret_cast<cudaStream_t>(stream));
    args.mover = device.get();
    const auto bytes = static_cast<size_t>(grid.halo_workspace_size(axis, halo)) * elem;
    args.work = workspace_.resolve(reinterpret_cast<void*>(work), bytes, device != nullptr);
    grid.check_halo(args);
    nb::gil_scoped_release release;
    grid.update_halos(args);
  }

 private:
  std::shared_ptr<HandleState> handle_;
  std::unique_ptr<decomp::GridDesc> core_;
  mutable decomp::ManagedWorkspace workspace_;
};

class HandleObject {
 public:
  explicit HandleObject(uintptr_t comm_handle) : state_(std::make_shared<HandleState>()) {
    MPI_Comm comm = reinterpret_cast<MPI_Comm>(comm_handle);
    state_->core = std::make_unique<decomp::Handle>(comm);
  }
  ~HandleObject() { finalize(); }

  const decomp::Handle& core() const {
    if (!state_->core) fail("the handle was finalized");
    return *state_->core;
  }

  void finalize() {
    // Grids hold references to the handle's communicator: release them first.
    for (GridObject* grid : std::set<GridObject*>(state_->grids)) grid->destroy();
    state_->core.reset();
  }
  bool alive() const { return state_->core != nullptr; }

  GridObject* create_grid(const Bytes& config_storage, std::optional<Bytes> options_storage) {
    const auto& handle = core();
    cudecompGridDescConfig_t config;
    copy_struct(config_storage, config, "config");
    cudecompGridDescAutotuneOptions_t options;
    if (options_storage) copy_struct(*options_storage, options, "options");
    std::unique_ptr<decomp::GridDesc> grid;
    {
      nb::gil_scoped_release release;
      grid = decomp::create_grid_desc(handle, config, options_storage ? &options : nullptr);
    }
    std::memcpy(config_storage.data(), &config, sizeof(config));  // autotuning results, as the C API does
    return new GridObject(state_, std::move(grid));
  }

 private:
  std::shared_ptr<HandleState> state_;
};

}  // namespace

void bind_cudecomp_grid(nb::module_& m) {
  nb::class_<HandleObject>(m, "Handle")
      .def(nb::init<uintptr_t>(), nb::arg("comm_handle"))
      .def_prop_ro("rank", [](const HandleObject& h) { return h.core().rank(); })
      .def_prop_ro("size", [](const HandleObject& h) { return h.core().size(); })
      .def_prop_ro("alive", &HandleObject::alive)
      .def("finalize", &HandleObject::finalize)
      .def("create_grid", &HandleObject::create_grid, nb::arg("config"), nb::arg("options").none(),
           nb::rv_policy::take_ownership);

  nb::class_<GridObject>(m, "GridDesc")
      .def_prop_ro("alive", &GridObject::alive)
      .def("destroy", [](GridObject& grid) { grid.destroy(true); })
      .def("config_bytes", &GridObject::config_bytes)
      .def("pencil_info", &GridObject::pencil_info)
      .def("transpose_workspace_size", [](const GridObject& g) { return g.core().transpose_workspace_size(); })
      .def("halo_workspace_size",
           [](const GridObject& g, int axis, Int3 halo) { return g.core().halo_workspace_size(axis, halo); })
      .def("shifted_rank", [](const GridObject& g, int axis, int dim, int displacement,
                              bool periodic) { return g.core().shifted_rank(axis, dim, displacement, periodic); })
      .def("transpose_needs_work",
           [](const GridObject& g, int op, bool in_place, Int3 ih, Int3 oh, Int3 ip, Int3 opad) {
             decomp::TransposeArgs args;
             static char dummy[2];
             args.input = dummy;
             args.output = in_place ? dummy : dummy + 1;
             args.input_halo = ih;
             args.output_halo = oh;
             args.input_padding = ip;
             args.output_padding = opad;
             return g.core().transpose_needs_work(static_cast<decomp::TransposeOp>(op), args);
           })
      .def_prop_ro("coords", [](const GridObject& g) { return g.core().coords(); })
      .def_prop_ro("autotune_report", [](const GridObject& g) { return g.core().autotune_report(); })
      .def("transpose", &GridObject::transpose, nb::arg("op"), nb::arg("input"), nb::arg("output"),
           nb::arg("work").none(), nb::arg("dtype"), nb::arg("input_halo"), nb::arg("output_halo"),
           nb::arg("input_padding"), nb::arg("output_padding"))
      .def("update_halos", &GridObject::update_halos, nb::arg("axis"), nb::arg("data"), nb::arg("work").none(),
           nb::arg("dtype"), nb::arg("halo"), nb::arg("periods"), nb::arg("dim"), nb::arg("padding"))
      .def("transpose_ptr", &GridObject::transpose_ptr, nb::arg("op"), nb::arg("input"), nb::arg("output"),
           nb::arg("work"), nb::arg("dtype"), nb::arg("input_halo"), nb::arg("output_halo"), nb::arg("input_padding"),
           nb::arg("output_padding"), nb::arg("stream"))
      .def("update_halos_ptr", &GridObject::update_halos_ptr, nb::arg("axis"), nb::arg("data"), nb::arg("work"),
           nb::arg("dtype"), nb::arg("halo"), nb::arg("periods"), nb::arg("dim"), nb::arg("padding"),
           nb::arg("stream"));
}

}  // namespace wavestack::bindings
