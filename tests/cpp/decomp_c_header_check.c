/* Compiled as C: cudecomp.h must stay a C header (C99, no C++ constructs). */
#include "cudecomp.h"

int decomp_c_header_check(void);

int decomp_c_header_check(void) {
  cudecompGridDescConfig_t config;
  cudecompGridDescAutotuneOptions_t options;
  cudecompPencilInfo_t info;
  if (cudecompGridDescConfigSetDefaults(&config) != CUDECOMP_RESULT_SUCCESS) return 1;
  if (cudecompGridDescAutotuneOptionsSetDefaults(&options) != CUDECOMP_RESULT_SUCCESS) return 2;
  info.size = 0;
  return (int)info.size + (config.transpose_comm_backend == CUDECOMP_TRANSPOSE_COMM_MPI_P2P ? 0 : 3);
}
