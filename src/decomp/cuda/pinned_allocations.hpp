// The page-locked host memory that cudecompMallocHost hands out, remembered by address so that
// cudecompFree knows, without guessing, which pointers go back to cudaFreeHost. (Pointer
// attributes cannot tell: memory the caller page-locked with cudaHostRegister reads as
// cudaMemoryTypeHost too, and is not ours to free.)
#pragma once

#include <cstddef>

namespace wavestack::decomp::cuda {

// cudaMallocHost, recorded; throws DecompError (CUDA_ERROR) naming the call when it fails.
void* pinned_allocate(size_t bytes);

// cudaFreeHost and forgets `pointer` when pinned_allocate returned it, and says so; otherwise
// false, without any CUDA call (so plain host pointers cost nothing, with or without a GPU).
bool pinned_release(void* pointer);

}  // namespace wavestack::decomp::cuda
