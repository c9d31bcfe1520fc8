! Host stand-in for the few names of CUDA Fortran's `cudafor` module that upstream cuDecomp's
! tests/ctest Fortran programs use (cudaSuccess, cudaGetDeviceCount, cudaSetDevice), answered by
! the C stand-in (cudart_host_standin.cpp: one host "device" per local rank). Those programs are
! compiled with gfortran and `device` defined as `dimension(:)`, so their rank-1 device arrays
! are ordinary host arrays and assignments between them are host copies. A test helper, not
! part of the product.
module cudafor
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  private

  integer, parameter, public :: cudaSuccess = 0
  public :: cudaGetDeviceCount, cudaSetDevice

  interface
    integer(c_int) function host_device_count(count) bind(C, name="wavestack_host_cudaGetDeviceCount")
      import :: c_int
      integer(c_int) :: count
    end function
    integer(c_int) function host_set_device(device) bind(C, name="wavestack_host_cudaSetDevice")
      import :: c_int
      integer(c_int), value :: device
    end function
  end interface

contains

  integer function cudaGetDeviceCount(count) result(status)
    integer, intent(out) :: count
    integer(c_int) :: devices
    devices = 0
    status = host_device_count(devices)
    count = devices
  end function

  integer function cudaSetDevice(device) result(status)
    integer, intent(in) :: device
    status = host_set_device(int(device, c_int))
  end function

end module cudafor
