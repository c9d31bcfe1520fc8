/*
 * The CUDA runtime and NCCL calls that upstream cuDecomp's test programs make for their own
 * buffers and setup, renamed to the host stand-ins of cudart_host_standin.cpp. The build
 * force-includes this header (-include) into upstream's test sources, before they include
 * cuda_runtime.h and nccl.h, so the declarations there are renamed too and every call of the
 * tests goes to the stand-in, while the library under test (whose CUDA build links the real CUDA
 * runtime) keeps the real functions. A machine without a GPU then runs the tests with host
 * memory as their "device" memory. A test helper, not part of the product.
 */
#ifndef WAVESTACK_CUDART_HOST_STANDIN_H
#define WAVESTACK_CUDART_HOST_STANDIN_H

#define cudaGetDeviceCount wavestack_host_cudaGetDeviceCount
#define cudaSetDevice wavestack_host_cudaSetDevice
#define cudaGetErrorString wavestack_host_cudaGetErrorString
#define cudaMalloc wavestack_host_cudaMalloc
#define cudaMallocManaged wavestack_host_cudaMallocManaged
#define cudaFree wavestack_host_cudaFree
#define cudaMemset wavestack_host_cudaMemset
#define cudaMemcpy wavestack_host_cudaMemcpy
#define ncclGetVersion wavestack_host_ncclGetVersion

#endif /* WAVESTACK_CUDART_HOST_STANDIN_H */
