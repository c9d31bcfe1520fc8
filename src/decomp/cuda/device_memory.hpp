// Device memory for the CUDA build: where a pointer lives (operations run on the device when
// their buffers are device or managed memory), and the allocations behind cudecompMalloc.
#pragma once

#include <cstddef>
#include <string>

namespace wavestack::decomp::cuda {

// True for device and managed memory. Host, pinned-host and unknown pointers, and any failure
// of the query (no driver, no device), give false; the query's error is cleared so it cannot
// surface from a later, unrelated CUDA call.
bool is_device_pointer(const void* pointer);
bool is_managed_pointer(const void* pointer);

// Whether the CUDA runtime sees at least one device (false without a driver; the query's
// error is cleared likewise).
bool device_present();

// The current device's PCI bus id, "" where there is none (the query's error is cleared).
std::string current_device_pci_bus_id();

// cudaMalloc / cudaMallocHost, throwing DecompError (CUDA_ERROR) naming the call; zero bytes are
// refused before this (cudecompMalloc's argument check).
void* device_allocate(size_t bytes);
void* pinned_host_allocate(size_t bytes);
void device_release(void* pointer);
void pinned_host_release(void* pointer);

}  // namespace wavestack::decomp::cuda
