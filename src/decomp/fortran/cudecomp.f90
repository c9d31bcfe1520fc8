! The cudecomp Fortran module: cuDecomp 0.7's Fortran API over the C API of cudecomp.h, through
! ISO_C_BINDING. The struct functions bind the versioned entry points (*Versioned), passing the
! size and version of this module's interoperable types, as upstream's 0.7 module does; in this
! host build pencil buffers and workspaces are ordinary host arrays of any type (passed by
! address), and streams are accepted and ignored, as in the C API.
!
! As in cuDecomp's Fortran API, indices are 1-based where C's are 0-based: axes and dims
! (1 = X), cudecompPencilInfo's lo, hi and order, a config's transpose_mem_order entries (unset:
! -1) and the autotune options' halo_axis. The wrappers convert both ways, and a struct handed in
! is given back with the caller's values. Upstream's tests/ctest Fortran programs run against this
! module in CI (tests/cudecomp_upstream).
module cudecomp
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  implicit none
  private

  ! Result codes.
  integer(c_int), parameter, public :: CUDECOMP_RESULT_SUCCESS = 0, CUDECOMP_RESULT_INVALID_USAGE = 1, &
                                       CUDECOMP_RESULT_NOT_SUPPORTED = 2, CUDECOMP_RESULT_INTERNAL_ERROR = 3, &
                                       CUDECOMP_RESULT_CUDA_ERROR = 4, CUDECOMP_RESULT_CUTENSOR_ERROR = 5, &
                                       CUDECOMP_RESULT_MPI_ERROR = 6, CUDECOMP_RESULT_NCCL_ERROR = 7, &
                                       CUDECOMP_RESULT_NVSHMEM_ERROR = 8, CUDECOMP_RESULT_NVML_ERROR = 9
  ! Transpose and halo communication backends (only the MPI ones run on host buffers).
  integer(c_int), parameter, public :: CUDECOMP_TRANSPOSE_COMM_MPI_P2P = 1, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL = 2, &
                                       CUDECOMP_TRANSPOSE_COMM_MPI_A2A = 3, CUDECOMP_TRANSPOSE_COMM_NCCL = 4, &
                                       CUDECOMP_TRANSPOSE_COMM_NCCL_PL = 5, CUDECOMP_TRANSPOSE_COMM_NVSHMEM = 6, &
                                       CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL = 7, CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM = 8
  integer(c_int), parameter, public :: CUDECOMP_HALO_COMM_MPI = 1, CUDECOMP_HALO_COMM_MPI_BLOCKING = 2, &
                                       CUDECOMP_HALO_COMM_NCCL = 3, CUDECOMP_HALO_COMM_NVSHMEM = 4, &
                                       CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING = 5
  integer(c_int), parameter, public :: CUDECOMP_FLOAT = -1, CUDECOMP_DOUBLE = -2, CUDECOMP_FLOAT_COMPLEX = -3, &
                                       CUDECOMP_DOUBLE_COMPLEX = -4
  integer(c_int), parameter, public :: CUDECOMP_AUTOTUNE_GRID_TRANSPOSE = 0, CUDECOMP_AUTOTUNE_GRID_HALO = 1
  integer(c_int), parameter, public :: CUDECOMP_RANK_ORDER_DEFAULT = 0, CUDECOMP_RANK_ORDER_ROW_MAJOR = 1, &
                                       CUDECOMP_RANK_ORDER_COL_MAJOR = 2
  ! Versions of cudecomp_version.h.
  integer, parameter, public :: CUDECOMP_MAJOR = 0, CUDECOMP_MINOR = 7, CUDECOMP_PATCH = 0
  integer(c_int32_t), parameter :: CONFIG_VERSION = 1, OPTIONS_VERSION = 1, PENCIL_INFO_VERSION = 1

  type, public :: cudecompHandle
    type(c_ptr) :: member = c_null_ptr
  end type
  type, public :: cudecompGridDesc
    type(c_ptr) :: member = c_null_ptr
  end type

  ! cudecompGridDescConfig_t; transpose_mem_order(order, axis) holds C's [axis][order], 1-based.
  type, bind(C), public :: cudecompGridDescConfig
    integer(c_int64_t) :: struct_size = 0
    integer(c_int32_t) :: magic = 0
    integer(c_int32_t) :: version = 0
    integer(c_int32_t) :: gdims(3) = 0
    integer(c_int32_t) :: gdims_dist(3) = 0
    integer(c_int32_t) :: pdims(2) = 0
    integer(c_int) :: rank_order = CUDECOMP_RANK_ORDER_DEFAULT
    integer(c_int) :: transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_MPI_P2P
    logical(c_bool) :: transpose_axis_contiguous(3) = .false.
    integer(c_int32_t) :: transpose_mem_order(3, 3) = -1
    integer(c_int) :: halo_comm_backend = CUDECOMP_HALO_COMM_MPI
  end type

  ! cudecompGridDescAutotuneOptions_t; per-operation tables are (dim, op) here, [op][dim] in C;
  ! halo_axis is 1-based.
  type, bind(C), public :: cudecompGridDescAutotuneOptions
    integer(c_int64_t) :: struct_size = 0
    integer(c_int32_t) :: magic = 0
    integer(c_int32_t) :: version = 0
    integer(c_int32_t) :: n_warmup_trials = 3
    integer(c_int32_t) :: n_trials = 5
    integer(c_int) :: grid_mode = CUDECOMP_AUTOTUNE_GRID_TRANSPOSE
    integer(c_int) :: dtype = CUDECOMP_DOUBLE
    logical(c_bool) :: allow_uneven_decompositions = .true.
    logical(c_bool) :: disable_mpi_backends = .false.
    logical(c_bool) :: disable_nccl_backends = .false.
    logical(c_bool) :: disable_nvshmem_backends = .false.
    real(c_double) :: skip_threshold = 0
    logical(c_bool) :: autotune_transpose_backend = .false.
    logical(c_bool) :: transpose_use_inplace_buffers(4) = .false.
    real(c_double) :: transpose_op_weights(4) = 1
    integer(c_int32_t) :: transpose_input_halo_extents(3, 4) = 0
    integer(c_int32_t) :: transpose_output_halo_extents(3, 4) = 0
    integer(c_int32_t) :: transpose_input_padding(3, 4) = 0
    integer(c_int32_t) :: transpose_output_padding(3, 4) = 0
    logical(c_bool) :: autotune_halo_backend = .false.
    integer(c_int32_t) :: halo_extents(3) = 0
    logical(c_bool) :: halo_periods(3) = .false.
    integer(c_int32_t) :: halo_axis = 1
    integer(c_int32_t) :: halo_padding(3) = 0
  end type

  ! cudecompPencilInfo_t; lo, hi and order are 1-based here.
  type, bind(C), public :: cudecompPencilInfo
    integer(c_int64_t) :: struct_size = 0
    integer(c_int32_t) :: magic = 0
    integer(c_int32_t) :: version = 0
    integer(c_int32_t) :: shape(3) = 0         ! local order, halos and padding included
    integer(c_int32_t) :: lo(3) = 0, hi(3) = 0 ! local order, global indices owned (hi = lo - 1 when empty)
    integer(c_int32_t) :: order(3) = 0         ! global axis (1 = X) at each local position, fastest first
    integer(c_int32_t) :: halo_extents(3) = 0  ! global order
    integer(c_int32_t) :: padding(3) = 0       ! global order
    integer(c_int64_t) :: size = 0             ! elements, halos and padding included
  end type

  public :: cudecompInit, cudecompFinalize, cudecompGridDescConfigSetDefaults, &
            cudecompGridDescAutotuneOptionsSetDefaults, cudecompGridDescCreate, cudecompGridDescDestroy, &
            cudecompGetPencilInfo, cudecompGetGridDescConfig, cudecompGetTransposeWorkspaceSize, &
            cudecompGetHaloWorkspaceSize, cudecompGetDataTypeSize, cudecompMalloc, cudecompFree, &
            cudecompTransposeCommBackendToString, cudecompHaloCommBackendToString, cudecompGetShiftedRank, &
            cudecompTransposeXToY, cudecompTransposeYToZ, cudecompTransposeZToY, cudecompTransposeYToX, &
            cudecompUpdateHalosX, cudecompUpdateHalosY, cudecompUpdateHalosZ

  ! Typed device (here: host) buffers of `buffer_size` elements, as upstream's module offers them.
  interface cudecompMalloc
    module procedure malloc_r4, malloc_r8, malloc_c4, malloc_c8
  end interface
  interface cudecompFree
    module procedure free_r4, free_r8, free_c4, free_c8
  end interface

  interface
    integer(c_int) function c_init_f(handle, comm) bind(C, name="cudecompInit_F")
      import :: c_ptr, c_int
      type(c_ptr) :: handle
      integer(c_int), value :: comm
    end function
    integer(c_int) function c_finalize(handle) bind(C, name="cudecompFinalize")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
    end function
    integer(c_int) function c_config_defaults(config, struct_size, version) &
        bind(C, name="cudecompGridDescConfigSetDefaultsVersioned")
      import :: c_int, c_int64_t, c_int32_t, cudecompGridDescConfig
      type(cudecompGridDescConfig) :: config
      integer(c_int64_t), value :: struct_size
      integer(c_int32_t), value :: version
    end function
    integer(c_int) function c_options_defaults(options, struct_size, version) &
        bind(C, name="cudecompGridDescAutotuneOptionsSetDefaultsVersioned")
      import :: c_int, c_int64_t, c_int32_t, cudecompGridDescAutotuneOptions
      type(cudecompGridDescAutotuneOptions) :: options
      integer(c_int64_t), value :: struct_size
      integer(c_int32_t), value :: version
    end function
    ! An absent `options` reaches C as a null pointer (Fortran 2018 interoperability).
    integer(c_int) function c_grid_create(handle, grid_desc, config, config_size, config_version, options, &
                                          options_size, options_version) bind(C, name="cudecompGridDescCreateVersioned")
      import :: c_ptr, c_int, c_int64_t, c_int32_t, cudecompGridDescConfig, cudecompGridDescAutotuneOptions
      type(c_ptr), value :: handle
      type(c_ptr) :: grid_desc
      type(cudecompGridDescConfig) :: config
      integer(c_int64_t), value :: config_size
      integer(c_int32_t), value :: config_version
      type(cudecompGridDescAutotuneOptions), optional :: options
      integer(c_int64_t), value :: options_size
      integer(c_int32_t), value :: options_version
    end function
    integer(c_int) function c_grid_destroy(handle, grid_desc) bind(C, name="cudecompGridDescDestroy")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle, grid_desc
    end function
    integer(c_int) function c_pencil_info(handle, grid_desc, info, struct_size, version, axis, halo_extents, padding) &
        bind(C, name="cudecompGetPencilInfoVersioned")
      import :: c_ptr, c_int, c_int32_t, c_int64_t, cudecompPencilInfo
      type(c_ptr), value :: handle, grid_desc
      type(cudecompPencilInfo) :: info
      integer(c_int64_t), value :: struct_size
      integer(c_int32_t), value :: version
      integer(c_int32_t), value :: axis
      integer(c_int32_t) :: halo_extents(3), padding(3)
    end function
    integer(c_int) function c_grid_config(handle, grid_desc, config, struct_size, version) &
        bind(C, name="cudecompGetGridDescConfigVersioned")
      import :: c_ptr, c_int, c_int64_t, c_int32_t, cudecompGridDescConfig
      type(c_ptr), value :: handle, grid_desc
      type(cudecompGridDescConfig) :: config
      integer(c_int64_t), value :: struct_size
      integer(c_int32_t), value :: version
    end function
    integer(c_int) function c_transpose_workspace_size(handle, grid_desc, size) &
        bind(C, name="cudecompGetTransposeWorkspaceSize")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: handle, grid_desc
      integer(c_int64_t) :: size
    end function
    integer(c_int) function c_halo_workspace_size(handle, grid_desc, axis, halo_extents, size) &
        bind(C, name="cudecompGetHaloWorkspaceSize")
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: handle, grid_desc
      integer(c_int32_t), value :: axis
      integer(c_int32_t) :: halo_extents(3)
      integer(c_int64_t) :: size
    end function
    integer(c_int) function c_data_type_size(dtype, size) bind(C, name="cudecompGetDataTypeSize")
      import :: c_int, c_int64_t
      integer(c_int), value :: dtype
      integer(c_int64_t) :: size
    end function
    integer(c_int) function c_malloc(handle, grid_desc, buffer, bytes) bind(C, name="cudecompMalloc")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: handle, grid_desc
      type(c_ptr) :: buffer
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_free(handle, grid_desc, buffer) bind(C, name="cudecompFree")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle, grid_desc, buffer
    end function
    type(c_ptr) function c_transpose_backend_string(backend) bind(C, name="cudecompTransposeCommBackendToString")
      import :: c_ptr, c_int
      integer(c_int), value :: backend
    end function
    type(c_ptr) function c_halo_backend_string(backend) bind(C, name="cudecompHaloCommBackendToString")
      import :: c_ptr, c_int
      integer(c_int), value :: backend
    end function
    integer(c_size_t) function c_strlen(text) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
    end function
    integer(c_int) function c_shifted_rank(handle, grid_desc, axis, dim, displacement, periodic, shifted_rank) &
        bind(C, name="cudecompGetShiftedRank")
      import :: c_ptr, c_int, c_int32_t, c_bool
      type(c_ptr), value :: handle, grid_desc
      integer(c_int32_t), value :: axis, dim, displacement
      logical(c_bool), value :: periodic
      integer(c_int32_t) :: shifted_rank
    end function
    ! The four transposes share one C signature; the stream is cudaStream_t, a pointer.
    integer(c_int) function c_transpose(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                        output_halo_extents, input_padding, output_padding, stream) bind(C)
      import :: c_ptr, c_int, c_int32_t, c_intptr_t
      type(c_ptr), value :: handle, grid_desc
      type(*), dimension(*) :: input, output, work
      integer(c_int), value :: dtype
      integer(c_int32_t) :: input_halo_extents(3), output_halo_extents(3), input_padding(3), output_padding(3)
      integer(c_intptr_t), value :: stream
    end function
    integer(c_int) function c_update_halos(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                           padding, stream) bind(C)
      import :: c_ptr, c_int, c_int32_t, c_bool, c_intptr_t
      type(c_ptr), value :: handle, grid_desc
      type(*), dimension(*) :: input, work
      integer(c_int), value :: dtype
      integer(c_int32_t) :: halo_extents(3)
      logical(c_bool) :: halo_periods(3)
      integer(c_int32_t), value :: dim
      integer(c_int32_t) :: padding(3)
      integer(c_intptr_t), value :: stream
    end function
  end interface

  ! The entry points of c_transpose and c_update_halos, bound by name to the one interface each.
  procedure(c_transpose), bind(C, name="cudecompTransposeXToY") :: c_transpose_x_to_y
  procedure(c_transpose), bind(C, name="cudecompTransposeYToZ") :: c_transpose_y_to_z
  procedure(c_transpose), bind(C, name="cudecompTransposeZToY") :: c_transpose_z_to_y
  procedure(c_transpose), bind(C, name="cudecompTransposeYToX") :: c_transpose_y_to_x
  procedure(c_update_halos), bind(C, name="cudecompUpdateHalosX") :: c_update_halos_x
  procedure(c_update_halos), bind(C, name="cudecompUpdateHalosY") :: c_update_halos_y
  procedure(c_update_halos), bind(C, name="cudecompUpdateHalosZ") :: c_update_halos_z

contains

  ! comm is the Fortran handle of an MPI communicator (use mpi: an integer; use mpi_f08: %MPI_VAL).
  integer function cudecompInit(handle, comm) result(res)
    type(cudecompHandle), intent(out) :: handle
    integer, intent(in) :: comm
    res = c_init_f(handle%member, int(comm, c_int))
  end function

  integer function cudecompFinalize(handle) result(res)
    type(cudecompHandle), intent(inout) :: handle
    res = c_finalize(handle%member)
    if (res == CUDECOMP_RESULT_SUCCESS) handle%member = c_null_ptr
  end function

  integer function cudecompGridDescConfigSetDefaults(config) result(res)
    type(cudecompGridDescConfig), intent(inout) :: config
    res = c_config_defaults(config, int(c_sizeof(config), c_int64_t), CONFIG_VERSION)
  end function

  integer function cudecompGridDescAutotuneOptionsSetDefaults(options) result(res)
    type(cudecompGridDescAutotuneOptions), intent(inout) :: options
    res = c_options_defaults(options, int(c_sizeof(options), c_int64_t), OPTIONS_VERSION)
    if (res == CUDECOMP_RESULT_SUCCESS) options%halo_axis = options%halo_axis + 1
  end function

  ! Autotuning writes its choice (pdims, backends) into config; the mem order comes back as given.
  integer function cudecompGridDescCreate(handle, grid_desc, config, options) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(out) :: grid_desc
    type(cudecompGridDescConfig), intent(inout) :: config
    type(cudecompGridDescAutotuneOptions), intent(in), optional :: options
    type(cudecompGridDescAutotuneOptions) :: zero_based_options
    integer(c_int32_t) :: mem_order(3, 3)
    mem_order = config%transpose_mem_order
    ! Every entry one lower, as upstream's module: 1-based orders become 0-based, and unset ones
    ! (-1, or a stray 0) stay negative, which C reads as unset.
    config%transpose_mem_order = mem_order - 1
    if (present(options)) then
      zero_based_options = options
      zero_based_options%halo_axis = options%halo_axis - 1
      res = c_grid_create(handle%member, grid_desc%member, config, int(c_sizeof(config), c_int64_t), CONFIG_VERSION, &
                          zero_based_options, int(c_sizeof(zero_based_options), c_int64_t), OPTIONS_VERSION)
    else
      res = c_grid_create(handle%member, grid_desc%member, config, int(c_sizeof(config), c_int64_t), CONFIG_VERSION, &
                          options_size=0_c_int64_t, options_version=0_c_int32_t)
    end if
    config%transpose_mem_order = mem_order
  end function

  integer function cudecompGridDescDestroy(handle, grid_desc) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(inout) :: grid_desc
    res = c_grid_destroy(handle%member, grid_desc%member)
    if (res == CUDECOMP_RESULT_SUCCESS) grid_desc%member = c_null_ptr
  end function

  integer function cudecompGetPencilInfo(handle, grid_desc, pinfo, axis, halo_extents, padding) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(cudecompPencilInfo), intent(inout) :: pinfo
    integer, intent(in) :: axis  ! 1 = X, 2 = Y, 3 = Z
    integer, intent(in), optional :: halo_extents(3), padding(3)
    res = c_pencil_info(handle%member, grid_desc%member, pinfo, int(c_sizeof(pinfo), c_int64_t), PENCIL_INFO_VERSION, &
                        int(axis - 1, c_int32_t), triple(halo_extents), triple(padding))
    if (res /= CUDECOMP_RESULT_SUCCESS) return
    pinfo%lo = pinfo%lo + 1
    pinfo%hi = pinfo%hi + 1
    pinfo%order = pinfo%order + 1
  end function

  integer function cudecompGetGridDescConfig(handle, grid_desc, config) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(cudecompGridDescConfig), intent(inout) :: config
    res = c_grid_config(handle%member, grid_desc%member, config, int(c_sizeof(config), c_int64_t), CONFIG_VERSION)
    if (res /= CUDECOMP_RESULT_SUCCESS) return
    where (config%transpose_mem_order >= 0)
      config%transpose_mem_order = config%transpose_mem_order + 1
    elsewhere
      config%transpose_mem_order = -1
    end where
  end function

  integer function cudecompGetTransposeWorkspaceSize(handle, grid_desc, workspace_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer(int64), intent(out) :: workspace_size
    res = c_transpose_workspace_size(handle%member, grid_desc%member, workspace_size)
  end function

  integer function cudecompGetHaloWorkspaceSize(handle, grid_desc, axis, halo_extents, workspace_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer, intent(in) :: axis
    integer, intent(in) :: halo_extents(3)
    integer(int64), intent(out) :: workspace_size
    res = c_halo_workspace_size(handle%member, grid_desc%member, int(axis - 1, c_int32_t), triple(halo_extents), &
                                workspace_size)
  end function

  integer function cudecompGetDataTypeSize(dtype, dtype_size) result(res)
    integer, intent(in) :: dtype
    integer(int64), intent(out) :: dtype_size
    res = c_data_type_size(int(dtype, c_int), dtype_size)
  end function

  ! The C allocation behind the typed cudecompMalloc: `bytes` bytes, or the C error.
  integer function allocate_bytes(handle, grid_desc, bytes, memory) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer(int64), intent(in) :: bytes
    type(c_ptr), intent(out) :: memory
    memory = c_null_ptr
    if (bytes < 0) then
      res = CUDECOMP_RESULT_INVALID_USAGE  ! a negative size would wrap around in size_t
      return
    end if
    res = c_malloc(handle%member, grid_desc%member, memory, int(bytes, c_size_t))
  end function

  integer function malloc_r4(handle, grid_desc, buffer, buffer_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    real(real32), pointer, contiguous, intent(out) :: buffer(:)
    integer(int64), intent(in) :: buffer_size  ! elements
    type(c_ptr) :: memory
    nullify(buffer)
    res = allocate_bytes(handle, grid_desc, buffer_size * 4_int64, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) call c_f_pointer(memory, buffer, [buffer_size])
  end function

  integer function malloc_r8(handle, grid_desc, buffer, buffer_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    real(real64), pointer, contiguous, intent(out) :: buffer(:)
    integer(int64), intent(in) :: buffer_size
    type(c_ptr) :: memory
    nullify(buffer)
    res = allocate_bytes(handle, grid_desc, buffer_size * 8_int64, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) call c_f_pointer(memory, buffer, [buffer_size])
  end function

  integer function malloc_c4(handle, grid_desc, buffer, buffer_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    complex(real32), pointer, contiguous, intent(out) :: buffer(:)
    integer(int64), intent(in) :: buffer_size
    type(c_ptr) :: memory
    nullify(buffer)
    res = allocate_bytes(handle, grid_desc, buffer_size * 8_int64, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) call c_f_pointer(memory, buffer, [buffer_size])
  end function

  integer function malloc_c8(handle, grid_desc, buffer, buffer_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    complex(real64), pointer, contiguous, intent(out) :: buffer(:)
    integer(int64), intent(in) :: buffer_size
    type(c_ptr) :: memory
    nullify(buffer)
    res = allocate_bytes(handle, grid_desc, buffer_size * 16_int64, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) call c_f_pointer(memory, buffer, [buffer_size])
  end function

  integer function free_r4(handle, grid_desc, buffer) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    real(real32), pointer, contiguous, intent(inout) :: buffer(:)
    type(c_ptr) :: memory
    memory = c_null_ptr  ! a disassociated pointer frees nothing, as a null pointer does in C
    if (associated(buffer)) memory = c_loc(buffer)
    res = c_free(handle%member, grid_desc%member, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) nullify(buffer)
  end function

  integer function free_r8(handle, grid_desc, buffer) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    real(real64), pointer, contiguous, intent(inout) :: buffer(:)
    type(c_ptr) :: memory
    memory = c_null_ptr  ! a disassociated pointer frees nothing, as a null pointer does in C
    if (associated(buffer)) memory = c_loc(buffer)
    res = c_free(handle%member, grid_desc%member, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) nullify(buffer)
  end function

  integer function free_c4(handle, grid_desc, buffer) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    complex(real32), pointer, contiguous, intent(inout) :: buffer(:)
    type(c_ptr) :: memory
    memory = c_null_ptr  ! a disassociated pointer frees nothing, as a null pointer does in C
    if (associated(buffer)) memory = c_loc(buffer)
    res = c_free(handle%member, grid_desc%member, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) nullify(buffer)
  end function

  integer function free_c8(handle, grid_desc, buffer) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    complex(real64), pointer, contiguous, intent(inout) :: buffer(:)
    type(c_ptr) :: memory
    memory = c_null_ptr  ! a disassociated pointer frees nothing, as a null pointer does in C
    if (associated(buffer)) memory = c_loc(buffer)
    res = c_free(handle%member, grid_desc%member, memory)
    if (res == CUDECOMP_RESULT_SUCCESS) nullify(buffer)
  end function

  function cudecompTransposeCommBackendToString(comm_backend) result(name)
    integer, intent(in) :: comm_backend
    character(len=:), allocatable :: name
    name = fortran_string(c_transpose_backend_string(int(comm_backend, c_int)))
  end function

  function cudecompHaloCommBackendToString(comm_backend) result(name)
    integer, intent(in) :: comm_backend
    character(len=:), allocatable :: name
    name = fortran_string(c_halo_backend_string(int(comm_backend, c_int)))
  end function

  ! A copy of the NUL-terminated C string at `text`.
  function fortran_string(text) result(copy)
    type(c_ptr), intent(in) :: text
    character(len=:), allocatable :: copy
    character(kind=c_char), pointer :: characters(:)
    integer :: i, length
    length = int(c_strlen(text))
    call c_f_pointer(text, characters, [length])
    allocate(character(len=length) :: copy)
    do i = 1, length
      copy(i:i) = characters(i)
    end do
  end function

  integer function cudecompGetShiftedRank(handle, grid_desc, axis, dim, displacement, periodic, shifted_rank) &
      result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer, intent(in) :: axis, dim, displacement  ! axis and dim 1-based
    logical, intent(in) :: periodic
    integer, intent(out) :: shifted_rank  ! a rank of the communicator (0-based), -1 for none
    integer(c_int32_t) :: rank
    rank = -1
    res = c_shifted_rank(handle%member, grid_desc%member, int(axis - 1, c_int32_t), int(dim - 1, c_int32_t), &
                         int(displacement, c_int32_t), logical(periodic, c_bool), rank)
    shifted_rank = rank
  end function

  integer function cudecompTransposeXToY(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output, work
    integer, intent(in) :: dtype
    integer, intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                     output_padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_transpose_x_to_y(handle%member, grid_desc%member, input, output, work, int(dtype, c_int), &
                             triple(input_halo_extents), triple(output_halo_extents), triple(input_padding), &
                             triple(output_padding), stream_handle(stream))
  end function

  integer function cudecompTransposeYToZ(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output, work
    integer, intent(in) :: dtype
    integer, intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                     output_padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_transpose_y_to_z(handle%member, grid_desc%member, input, output, work, int(dtype, c_int), &
                             triple(input_halo_extents), triple(output_halo_extents), triple(input_padding), &
                             triple(output_padding), stream_handle(stream))
  end function

  integer function cudecompTransposeZToY(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output, work
    integer, intent(in) :: dtype
    integer, intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                     output_padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_transpose_z_to_y(handle%member, grid_desc%member, input, output, work, int(dtype, c_int), &
                             triple(input_halo_extents), triple(output_halo_extents), triple(input_padding), &
                             triple(output_padding), stream_handle(stream))
  end function

  integer function cudecompTransposeYToX(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output, work
    integer, intent(in) :: dtype
    integer, intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                     output_padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_transpose_y_to_x(handle%member, grid_desc%member, input, output, work, int(dtype, c_int), &
                             triple(input_halo_extents), triple(output_halo_extents), triple(input_padding), &
                             triple(output_padding), stream_handle(stream))
  end function

  ! dim is 1-based (1 = X); halo_periods are Fortran logicals.
  integer function cudecompUpdateHalosX(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, work
    integer, intent(in) :: dtype, halo_extents(3), dim
    logical, intent(in) :: halo_periods(3)
    integer, intent(in), optional :: padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_update_halos_x(handle%member, grid_desc%member, input, work, int(dtype, c_int), triple(halo_extents), &
                           logical(halo_periods, c_bool), int(dim - 1, c_int32_t), triple(padding), &
                           stream_handle(stream))
  end function

  integer function cudecompUpdateHalosY(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, work
    integer, intent(in) :: dtype, halo_extents(3), dim
    logical, intent(in) :: halo_periods(3)
    integer, intent(in), optional :: padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_update_halos_y(handle%member, grid_desc%member, input, work, int(dtype, c_int), triple(halo_extents), &
                           logical(halo_periods, c_bool), int(dim - 1, c_int32_t), triple(padding), &
                           stream_handle(stream))
  end function

  integer function cudecompUpdateHalosZ(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, work
    integer, intent(in) :: dtype, halo_extents(3), dim
    logical, intent(in) :: halo_periods(3)
    integer, intent(in), optional :: padding(3)
    integer(c_intptr_t), intent(in), optional :: stream
    res = c_update_halos_z(handle%member, grid_desc%member, input, work, int(dtype, c_int), triple(halo_extents), &
                           logical(halo_periods, c_bool), int(dim - 1, c_int32_t), triple(padding), &
                           stream_handle(stream))
  end function

  ! An optional triple of halo extents or paddings as C's int32_t[3]; absent is all zero.
  function triple(values) result(c_values)
    integer, intent(in), optional :: values(3)
    integer(c_int32_t) :: c_values(3)
    c_values = 0
    if (present(values)) c_values = int(values, c_int32_t)
  end function

  ! An optional stream as cudaStream_t's bits; absent is the default stream (0).
  integer(c_intptr_t) function stream_handle(stream)
    integer(c_intptr_t), intent(in), optional :: stream
    stream_handle = 0
    if (present(stream)) stream_handle = stream
  end function

end module cudecomp
