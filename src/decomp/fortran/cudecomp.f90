! The cudecomp Fortran module: cuDecomp's Fortran API over the C API of cudecomp.h, through
! ISO_C_BINDING. In this host build pencil buffers and workspaces are ordinary host arrays of
! any type (passed by address); streams are accepted and ignored, as in the C API.
!
! As in cuDecomp's Fortran API, axes and dims are 1-based (1 = X), and cudecompPencilInfo's lo,
! hi and order are 1-based; shape, halo_extents, padding and size are as in C. The structs with
! a C counterpart (config, autotune options) are interoperable and begin with the versioned
! header (struct_size, magic, version) that the *SetDefaults functions fill.
module cudecomp
  use, intrinsic :: iso_c_binding
  implicit none
  private

  ! Result codes.
  integer(c_int), parameter, public :: CUDECOMP_RESULT_SUCCESS = 0, CUDECOMP_RESULT_INVALID_USAGE = 1, &
                                       CUDECOMP_RESULT_NOT_SUPPORTED = 2, CUDECOMP_RESULT_INTERNAL_ERROR = 3, &
                                       CUDECOMP_RESULT_CUDA_ERROR = 4, CUDECOMP_RESULT_CUTENSOR_ERROR = 5, &
                                       CUDECOMP_RESULT_MPI_ERROR = 6, CUDECOMP_RESULT_NCCL_ERROR = 7, &
                                       CUDECOMP_RESULT_NVSHMEM_ERROR = 8, CUDECOMP_RESULT_NVML_ERROR = 9
  ! Transpose and halo communication backends (only the MPI ones run in this build).
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

  ! cudecompGridDescConfig_t; transpose_mem_order(order, axis) holds C's [axis][order] (0-based values).
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

  ! cudecompGridDescAutotuneOptions_t; per-operation tables are (dim, op) here, [op][dim] in C.
  type, bind(C), public :: cudecompGridDescAutotuneOptions
    integer(c_int64_t) :: struct_size = 0
    integer(c_int32_t) :: magic = 0
    integer(c_int32_t) :: version = 0
    integer(c_int32_t) :: n_warmup_trials = 3
    integer(c_int32_t) :: n_trials = 5
    integer(c_int) :: grid_mode = CUDECOMP_AUTOTUNE_GRID_TRANSPOSE
    integer(c_int) :: dtype = CUDECOMP_DOUBLE
    logical(c_bool) :: allow_uneven_decompositions = .true.
    logical(c_bool) :: disable_nccl_backends = .false.
    logical(c_bool) :: disable_nvshmem_backends = .false.
    logical(c_bool) :: disable_mpi_backends = .false.
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
    integer(c_int32_t) :: halo_axis = 0
    integer(c_int32_t) :: halo_padding(3) = 0
  end type

  ! cudecompPencilInfo_t as C lays it out (0-based); the public type below is 1-based.
  type, bind(C) :: pencil_info_c
    integer(c_int64_t) :: struct_size
    integer(c_int32_t) :: magic, version
    integer(c_int32_t) :: shape(3), lo(3), hi(3), order(3), halo_extents(3), padding(3)
    integer(c_int64_t) :: size
  end type

  type, public :: cudecompPencilInfo
    integer :: shape(3) = 0         ! local order, halos and padding included
    integer :: lo(3) = 0, hi(3) = 0 ! local order, 1-based global indices owned (hi = lo - 1 when empty)
    integer :: order(3) = 0         ! global axis (1 = X) at each local position, fastest first
    integer :: halo_extents(3) = 0  ! global order
    integer :: padding(3) = 0       ! global order
    integer(c_int64_t) :: size = 0  ! elements, halos and padding included
  end type

  public :: cudecompInit, cudecompFinalize, cudecompGridDescConfigSetDefaults, &
            cudecompGridDescAutotuneOptionsSetDefaults, cudecompGridDescCreate, cudecompGridDescDestroy, &
            cudecompGetPencilInfo, cudecompGetTransposeWorkspaceSize, cudecompGetHaloWorkspaceSize, &
            cudecompGetDataTypeSize, cudecompTransposeXToY, cudecompTransposeYToZ, cudecompTransposeZToY, &
            cudecompTransposeYToX, cudecompUpdateHalosX, cudecompUpdateHalosY, cudecompUpdateHalosZ, &
            cudecompGetShiftedRank

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
    integer(c_int) function c_grid_create(handle, grid_desc, config, options, config_size, config_version, &
                                          options_size, options_version) bind(C, name="cudecompGridDescCreateVersioned")
      import :: c_ptr, c_int, c_int64_t, c_int32_t, cudecompGridDescConfig, cudecompGridDescAutotuneOptions
      type(c_ptr), value :: handle
      type(c_ptr) :: grid_desc
      type(cudecompGridDescConfig) :: config
      type(cudecompGridDescAutotuneOptions), optional :: options
      integer(c_int64_t), value :: config_size, options_size
      integer(c_int32_t), value :: config_version, options_version
    end function
    integer(c_int) function c_grid_destroy(handle, grid_desc) bind(C, name="cudecompGridDescDestroy")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle, grid_desc
    end function
    integer(c_int) function c_pencil_info(handle, grid_desc, info, axis, halo_extents, padding, struct_size, &
                                          version) bind(C, name="cudecompGetPencilInfoVersioned")
      import :: c_ptr, c_int, c_int32_t, c_int64_t, pencil_info_c
      type(c_ptr), value :: handle, grid_desc
      type(pencil_info_c) :: info
      integer(c_int32_t), value :: axis
      integer(c_int32_t), optional :: halo_extents(3), padding(3)
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
    integer(c_int) function c_shifted_rank(handle, grid_desc, axis, dim, displacement, periodic, shifted_rank) &
        bind(C, name="cudecompGetShiftedRank")
      import :: c_ptr, c_int, c_int32_t, c_bool
      type(c_ptr), value :: handle, grid_desc
      integer(c_int32_t), value :: axis, dim, displacement
      logical(c_bool), value :: periodic
      integer(c_int32_t) :: shifted_rank
    end function
    ! The four transposes share one C signature; an absent work, halo or padding argument
    ! reaches C as a null pointer (Fortran 2018 interoperability of optional arguments).
    integer(c_int) function c_transpose(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                        output_halo_extents, input_padding, output_padding, stream) bind(C)
      import :: c_ptr, c_int, c_int32_t
      type(c_ptr), value :: handle, grid_desc
      type(*), dimension(*) :: input, output
      type(*), dimension(*), optional :: work
      integer(c_int), value :: dtype
      integer(c_int32_t), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                      output_padding(3)
      type(c_ptr), value :: stream
    end function
    integer(c_int) function c_update_halos(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                           padding, stream) bind(C)
      import :: c_ptr, c_int, c_int32_t, c_bool
      type(c_ptr), value :: handle, grid_desc
      type(*), dimension(*) :: input
      type(*), dimension(*), optional :: work
      integer(c_int), value :: dtype
      integer(c_int32_t) :: halo_extents(3)
      logical(c_bool) :: halo_periods(3)
      integer(c_int32_t), value :: dim
      integer(c_int32_t), optional :: padding(3)
      type(c_ptr), value :: stream
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
  end function

  integer function cudecompGridDescCreate(handle, grid_desc, config, options) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(out) :: grid_desc
    type(cudecompGridDescConfig), intent(inout) :: config
    type(cudecompGridDescAutotuneOptions), intent(in), optional :: options
    type(cudecompGridDescAutotuneOptions) :: sizing  ! only for its size
    res = c_grid_create(handle%member, grid_desc%member, config, options, int(c_sizeof(config), c_int64_t), &
                        CONFIG_VERSION, int(c_sizeof(sizing), c_int64_t), OPTIONS_VERSION)
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
    type(cudecompPencilInfo), intent(out) :: pinfo
    integer, intent(in) :: axis  ! 1 = X, 2 = Y, 3 = Z
    integer(c_int32_t), intent(in), optional :: halo_extents(3), padding(3)
    type(pencil_info_c) :: info
    integer(c_int32_t) :: halo_copy(3), padding_copy(3)
    if (present(halo_extents)) halo_copy = halo_extents
    if (present(padding)) padding_copy = padding
    if (present(halo_extents) .and. present(padding)) then
      res = c_pencil_info(handle%member, grid_desc%member, info, int(axis - 1, c_int32_t), halo_copy, padding_copy, &
                          int(c_sizeof(info), c_int64_t), PENCIL_INFO_VERSION)
    else if (present(halo_extents)) then
      res = c_pencil_info(handle%member, grid_desc%member, info, int(axis - 1, c_int32_t), halo_copy, &
                          struct_size=int(c_sizeof(info), c_int64_t), version=PENCIL_INFO_VERSION)
    else if (present(padding)) then
      res = c_pencil_info(handle%member, grid_desc%member, info, int(axis - 1, c_int32_t), padding=padding_copy, &
                          struct_size=int(c_sizeof(info), c_int64_t), version=PENCIL_INFO_VERSION)
    else
      res = c_pencil_info(handle%member, grid_desc%member, info, int(axis - 1, c_int32_t), &
                          struct_size=int(c_sizeof(info), c_int64_t), version=PENCIL_INFO_VERSION)
    end if
    if (res /= CUDECOMP_RESULT_SUCCESS) return
    pinfo%shape = info%shape
    pinfo%lo = info%lo + 1
    pinfo%hi = info%hi + 1
    pinfo%order = info%order + 1
    pinfo%halo_extents = info%halo_extents
    pinfo%padding = info%padding
    pinfo%size = info%size
  end function

  integer function cudecompGetTransposeWorkspaceSize(handle, grid_desc, workspace_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer(c_int64_t), intent(out) :: workspace_size
    res = c_transpose_workspace_size(handle%member, grid_desc%member, workspace_size)
  end function

  integer function cudecompGetHaloWorkspaceSize(handle, grid_desc, axis, halo_extents, workspace_size) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer, intent(in) :: axis
    integer(c_int32_t), intent(in) :: halo_extents(3)
    integer(c_int64_t), intent(out) :: workspace_size
    integer(c_int32_t) :: halo_copy(3)
    halo_copy = halo_extents
    res = c_halo_workspace_size(handle%member, grid_desc%member, int(axis - 1, c_int32_t), halo_copy, workspace_size)
  end function

  integer function cudecompGetDataTypeSize(dtype, dtype_size) result(res)
    integer(c_int), intent(in) :: dtype
    integer(c_int64_t), intent(out) :: dtype_size
    res = c_data_type_size(dtype, dtype_size)
  end function

  integer function cudecompGetShiftedRank(handle, grid_desc, axis, dim, displacement, periodic, shifted_rank) &
      result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    integer, intent(in) :: axis, dim, displacement
    logical, intent(in) :: periodic
    integer, intent(out) :: shifted_rank
    integer(c_int32_t) :: rank
    res = c_shifted_rank(handle%member, grid_desc%member, int(axis - 1, c_int32_t), int(dim - 1, c_int32_t), &
                         int(displacement, c_int32_t), logical(periodic, c_bool), rank)
    shifted_rank = rank
  end function

  integer function cudecompTransposeXToY(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                                output_padding(3)
    type(c_ptr), intent(in), optional :: stream  ! accepted and ignored (host build)
    res = c_transpose_x_to_y(handle%member, grid_desc%member, input, output, work, dtype, input_halo_extents, &
                             output_halo_extents, input_padding, output_padding, c_null_ptr)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  integer function cudecompTransposeYToZ(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                                output_padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = c_transpose_y_to_z(handle%member, grid_desc%member, input, output, work, dtype, input_halo_extents, &
                             output_halo_extents, input_padding, output_padding, c_null_ptr)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  integer function cudecompTransposeZToY(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                                output_padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = c_transpose_z_to_y(handle%member, grid_desc%member, input, output, work, dtype, input_halo_extents, &
                             output_halo_extents, input_padding, output_padding, c_null_ptr)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  integer function cudecompTransposeYToX(handle, grid_desc, input, output, work, dtype, input_halo_extents, &
                                         output_halo_extents, input_padding, output_padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input, output
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in), optional :: input_halo_extents(3), output_halo_extents(3), input_padding(3), &
                                                output_padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = c_transpose_y_to_x(handle%member, grid_desc%member, input, output, work, dtype, input_halo_extents, &
                             output_halo_extents, input_padding, output_padding, c_null_ptr)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  ! dim is 1-based (1 = X); halo_periods are Fortran logicals.
  integer function cudecompUpdateHalosX(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: halo_extents(3)
    logical, intent(in) :: halo_periods(3)
    integer, intent(in) :: dim
    integer(c_int32_t), intent(in), optional :: padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = update_halos(c_update_halos_x, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                       padding)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  integer function cudecompUpdateHalosY(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: halo_extents(3)
    logical, intent(in) :: halo_periods(3)
    integer, intent(in) :: dim
    integer(c_int32_t), intent(in), optional :: padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = update_halos(c_update_halos_y, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                       padding)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  integer function cudecompUpdateHalosZ(handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                        padding, stream) result(res)
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: halo_extents(3)
    logical, intent(in) :: halo_periods(3)
    integer, intent(in) :: dim
    integer(c_int32_t), intent(in), optional :: padding(3)
    type(c_ptr), intent(in), optional :: stream
    res = update_halos(c_update_halos_z, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                       padding)
    if (present(stream)) continue  ! streams order nothing in the host build
  end function

  ! The three halo updates differ only in the C function they call.
  integer function update_halos(c_function, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim, &
                                padding) result(res)
    procedure(c_update_halos) :: c_function
    type(cudecompHandle), intent(in) :: handle
    type(cudecompGridDesc), intent(in) :: grid_desc
    type(*), dimension(*) :: input
    type(*), dimension(*), optional :: work
    integer(c_int), intent(in) :: dtype
    integer(c_int32_t), intent(in) :: halo_extents(3)
    logical, intent(in) :: halo_periods(3)
    integer, intent(in) :: dim
    integer(c_int32_t), intent(in), optional :: padding(3)
    integer(c_int32_t) :: halo_copy(3)
    logical(c_bool) :: periods(3)
    halo_copy = halo_extents
    periods = logical(halo_periods, c_bool)
    res = c_function(handle%member, grid_desc%member, input, work, dtype, halo_copy, periods, int(dim - 1, c_int32_t), &
                     padding, c_null_ptr)
  end function

end module cudecomp
