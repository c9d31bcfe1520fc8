! A transpose cycle X -> Y -> Z -> Y -> X through the cudecomp Fortran module, under MPI, on a
! 1 x N and an N x 1 process grid with uneven pencils, with the default memory layout and with a
! 1-based transpose_mem_order, the workspace from cudecompMalloc or an allocatable array. Every
! element owned by a rank must equal a function of its global index before and after each
! transpose; cells past a pencil's end must stay untouched. A grid that leaves some rank's pencil
! empty (2 x 2 x 2 on 1 x 3) is created, but its transposes are NOT_SUPPORTED and touch nothing.
! Then periodic halo updates of a Y-pencil in X, Y and Z: every cell, halos and corners
! included, must hold the value of its periodically wrapped global index. Upstream's own
! Fortran tests run against the module in CI too (tests/cudecomp_upstream).
program decomp_fortran_transpose
  use mpi
  use cudecomp
  use, intrinsic :: iso_c_binding
  implicit none

  integer :: ierr, rank, nranks, failures
  type(cudecompHandle) :: handle

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  failures = 0

  call expect(cudecompInit(handle, MPI_COMM_WORLD) == CUDECOMP_RESULT_SUCCESS, "cudecompInit")
  call check_defaults()
  call run_cycle([7, 5, 4], [1, nranks], CUDECOMP_TRANSPOSE_COMM_MPI_P2P, .false.)
  call run_cycle([7, 5, 4], [nranks, 1], CUDECOMP_TRANSPOSE_COMM_MPI_A2A, .true.)
  call run_cycle([2, 2, 2], [1, nranks], CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, .true.)
  call periodic_halos([6, 5, 2 * nranks + 1], [1, nranks])
  call expect(cudecompFinalize(handle) == CUDECOMP_RESULT_SUCCESS, "cudecompFinalize")

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', "decomp_fortran_transpose: ", nranks, " ranks, ", failures, " failures"
  call MPI_Finalize(ierr)
  if (failures /= 0) stop 1

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) then
      print '(a, i0, 2a)', "rank ", rank, ": failed: ", what
      failures = failures + 1
    end if
  end subroutine

  ! The value of global (1-based) index g: its 0-based linear index in the global grid.
  real(c_double) function global_value(g, gdims)
    integer, intent(in) :: g(3), gdims(3)
    global_value = real(g(1) - 1, c_double) + real(g(2) - 1, c_double) * gdims(1) + &
                   real(g(3) - 1, c_double) * gdims(1) * gdims(2)
  end function

  subroutine fill(data, pinfo, gdims)
    real(c_double), intent(inout) :: data(:)
    type(cudecompPencilInfo), intent(in) :: pinfo
    integer, intent(in) :: gdims(3)
    integer :: i, j, k, g(3)
    data(1:pinfo%size) = -1
    do k = pinfo%lo(3), pinfo%hi(3)
      do j = pinfo%lo(2), pinfo%hi(2)
        do i = pinfo%lo(1), pinfo%hi(1)
          g(pinfo%order(1)) = i
          g(pinfo%order(2)) = j
          g(pinfo%order(3)) = k
          data(offset(pinfo, i, j, k)) = global_value(g, gdims)
        end do
      end do
    end do
  end subroutine

  integer function mismatches(data, pinfo, gdims)
    real(c_double), intent(in) :: data(:)
    type(cudecompPencilInfo), intent(in) :: pinfo
    integer, intent(in) :: gdims(3)
    integer :: i, j, k, g(3)
    mismatches = 0
    do k = pinfo%lo(3), pinfo%hi(3)
      do j = pinfo%lo(2), pinfo%hi(2)
        do i = pinfo%lo(1), pinfo%hi(1)
          g(pinfo%order(1)) = i
          g(pinfo%order(2)) = j
          g(pinfo%order(3)) = k
          if (data(offset(pinfo, i, j, k)) /= global_value(g, gdims)) mismatches = mismatches + 1
        end do
      end do
    end do
    ! The guard cells after the pencil.
    mismatches = mismatches + count(data(pinfo%size + 1:) /= 777)
  end function

  ! 1-based position in the buffer of local-order global indices (i, j, k).
  integer function offset(pinfo, i, j, k)
    type(cudecompPencilInfo), intent(in) :: pinfo
    integer, intent(in) :: i, j, k
    offset = 1 + (i - pinfo%lo(1)) + pinfo%shape(1) * ((j - pinfo%lo(2)) + pinfo%shape(2) * (k - pinfo%lo(3)))
  end function

  ! The 1-based conventions of the module: halo_axis 1 (X) and unset (-1) memory orders.
  subroutine check_defaults()
    type(cudecompGridDescConfig) :: config
    type(cudecompGridDescAutotuneOptions) :: options
    call expect(cudecompGridDescConfigSetDefaults(config) == CUDECOMP_RESULT_SUCCESS, "config SetDefaults")
    call expect(config%version == 1 .and. config%struct_size == c_sizeof(config), "config header")
    call expect(all(config%transpose_mem_order == -1), "default transpose_mem_order is unset (-1)")
    call expect(cudecompGridDescAutotuneOptionsSetDefaults(options) == CUDECOMP_RESULT_SUCCESS, "options SetDefaults")
    call expect(options%halo_axis == 1 .and. options%struct_size == c_sizeof(options), "options halo_axis 1 (X)")
    call expect(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL) == "MPI_P2P (pipelined)", &
                "transpose backend name")
  end subroutine

  ! mem_order: each pencil's own axis fastest, as 1-based transpose_mem_order columns; else the
  ! default layout with Y and Z pencils axis-contiguous.
  subroutine run_cycle(gdims, pdims, backend, mem_order)
    integer, intent(in) :: gdims(3), pdims(2)
    integer(c_int), intent(in) :: backend
    logical, intent(in) :: mem_order
    integer, parameter :: guard = 16
    integer, parameter :: orders(3, 3) = reshape([1, 2, 3, 2, 3, 1, 3, 1, 2], [3, 3])
    type(cudecompGridDescConfig) :: config, queried
    type(cudecompGridDesc) :: grid
    type(cudecompPencilInfo) :: info(3)
    real(c_double), allocatable :: x(:), y(:), z(:), before(:)
    real(c_double), pointer, contiguous :: work(:)
    integer(c_int64_t) :: work_size
    integer :: axis, result
    logical :: empty

    call expect(cudecompGridDescConfigSetDefaults(config) == CUDECOMP_RESULT_SUCCESS, "SetDefaults")
    config%gdims = gdims
    config%pdims = pdims
    config%transpose_comm_backend = backend
    if (mem_order) then
      config%transpose_mem_order = orders
    else
      config%transpose_axis_contiguous = [.false., .true., .true.]
    end if
    call expect(cudecompGridDescCreate(handle, grid, config) == CUDECOMP_RESULT_SUCCESS, "GridDescCreate")
    if (mem_order) then
      call expect(all(config%transpose_mem_order == orders), "transpose_mem_order given back 1-based")
      call expect(cudecompGetGridDescConfig(handle, grid, queried) == CUDECOMP_RESULT_SUCCESS, "GetGridDescConfig")
      call expect(all(queried%transpose_mem_order == orders), "queried transpose_mem_order 1-based")
    end if
    do axis = 1, 3
      call expect(cudecompGetPencilInfo(handle, grid, info(axis), axis) == CUDECOMP_RESULT_SUCCESS, "GetPencilInfo")
      call expect(info(axis)%order(1) == axis, "pencil axis fastest")
      if (mem_order) call expect(all(info(axis)%order == orders(:, axis)), "pencil order = transpose_mem_order")
    end do
    allocate(x(info(1)%size + guard), y(info(2)%size + guard), z(info(3)%size + guard))
    x(info(1)%size + 1:) = 777
    y(info(2)%size + 1:) = 777
    z(info(3)%size + 1:) = 777
    call fill(x, info(1), gdims)
    call expect(mismatches(x, info(1), gdims) == 0, "fill")
    call expect(cudecompGetTransposeWorkspaceSize(handle, grid, work_size) == CUDECOMP_RESULT_SUCCESS, &
                "GetTransposeWorkspaceSize")
    call expect(cudecompMalloc(handle, grid, work, max(work_size, 1_c_int64_t)) == CUDECOMP_RESULT_SUCCESS, &
                "cudecompMalloc")

    ! Upstream's rule: more process rows than the X or Y extent, or columns than the Y or Z one.
    empty = pdims(1) > min(gdims(1), gdims(2)) .or. pdims(2) > min(gdims(2), gdims(3))
    if (empty) then
      before = x
      result = cudecompTransposeXToY(handle, grid, x, y, work, CUDECOMP_DOUBLE)
      call expect(result == CUDECOMP_RESULT_NOT_SUPPORTED, "XToY on a grid with empty pencils is NOT_SUPPORTED")
      call expect(all(x == before) .and. all(y(info(2)%size + 1:) == 777), "nothing written")
    else
      call expect(cudecompTransposeXToY(handle, grid, x, y, work, CUDECOMP_DOUBLE) == CUDECOMP_RESULT_SUCCESS, "XToY")
      call expect(mismatches(y, info(2), gdims) == 0, "Y pencil after XToY")
      call expect(cudecompTransposeYToZ(handle, grid, y, z, work, CUDECOMP_DOUBLE) == CUDECOMP_RESULT_SUCCESS, "YToZ")
      call expect(mismatches(z, info(3), gdims) == 0, "Z pencil after YToZ")
      y(1:info(2)%size) = 0
      call expect(cudecompTransposeZToY(handle, grid, z, y, work, CUDECOMP_DOUBLE) == CUDECOMP_RESULT_SUCCESS, "ZToY")
      call expect(mismatches(y, info(2), gdims) == 0, "Y pencil after ZToY")
      x(1:info(1)%size) = 0
      call expect(cudecompTransposeYToX(handle, grid, y, x, work, CUDECOMP_DOUBLE) == CUDECOMP_RESULT_SUCCESS, "YToX")
      call expect(mismatches(x, info(1), gdims) == 0, "X pencil after YToX")
    end if
    call expect(cudecompFree(handle, grid, work) == CUDECOMP_RESULT_SUCCESS, "cudecompFree")
    call expect(.not. associated(work), "cudecompFree nullifies")
    call expect(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS, "GridDescDestroy")
  end subroutine

  ! Y-pencil with halos (1, 2, 1), filled in its owned cells, updated along X, Y and Z in turn.
  subroutine periodic_halos(gdims, pdims)
    integer, intent(in) :: gdims(3), pdims(2)
    integer, parameter :: halo(3) = [1, 2, 1]
    logical, parameter :: periods(3) = [.true., .true., .true.]
    type(cudecompGridDescConfig) :: config
    type(cudecompGridDesc) :: grid
    type(cudecompPencilInfo) :: info
    real(c_double), allocatable :: data(:), work(:)
    integer(c_int64_t) :: work_size
    integer :: dim, i, j, k, local(3), g(3), p, wrong

    call expect(cudecompGridDescConfigSetDefaults(config) == CUDECOMP_RESULT_SUCCESS, "SetDefaults")
    config%gdims = gdims
    config%pdims = pdims
    call expect(cudecompGridDescCreate(handle, grid, config) == CUDECOMP_RESULT_SUCCESS, "GridDescCreate")
    call expect(cudecompGetPencilInfo(handle, grid, info, 2, halo) == CUDECOMP_RESULT_SUCCESS, "GetPencilInfo")
    call expect(cudecompGetHaloWorkspaceSize(handle, grid, 2, halo, work_size) == CUDECOMP_RESULT_SUCCESS, &
                "GetHaloWorkspaceSize")
    allocate(data(info%size), work(max(work_size, 1_c_int64_t)))
    data = -1
    do k = 1, info%shape(3)
      do j = 1, info%shape(2)
        do i = 1, info%shape(1)
          local = [i, j, k]
          ! Owned cells: local index past the halo on every axis.
          if (all(local > halo(info%order)) .and. all(local <= info%shape - halo(info%order))) then
            do p = 1, 3
              g(info%order(p)) = info%lo(p) + local(p) - 1 - halo(info%order(p))
            end do
            data(i + info%shape(1) * ((j - 1) + info%shape(2) * (k - 1))) = global_value(g, gdims)
          end if
        end do
      end do
    end do
    do dim = 1, 3
      call expect(cudecompUpdateHalosY(handle, grid, data, work, CUDECOMP_DOUBLE, halo, periods, dim) == &
                  CUDECOMP_RESULT_SUCCESS, "UpdateHalosY")
    end do
    wrong = 0
    do k = 1, info%shape(3)
      do j = 1, info%shape(2)
        do i = 1, info%shape(1)
          local = [i, j, k]
          do p = 1, 3
            ! 1-based global index, wrapped into 1..gdims.
            g(info%order(p)) = modulo(info%lo(p) + local(p) - 2 - halo(info%order(p)), gdims(info%order(p))) + 1
          end do
          if (data(i + info%shape(1) * ((j - 1) + info%shape(2) * (k - 1))) /= global_value(g, gdims)) &
            wrong = wrong + 1
        end do
      end do
    end do
    call expect(wrong == 0, "periodic halos")
    call expect(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS, "GridDescDestroy")
  end subroutine

end program
