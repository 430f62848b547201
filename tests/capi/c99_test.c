/* The C API header compiles as strict C99 (-std=c99 -pedantic) and the
 * library links from C: versions, a failing load with its status and
 * message, cancel's argument check and status name, then (given a
 * program) metadata and one run on zeros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgec/edgec.h"

int main(int argc, char** argv) {
  edgec_program* program = NULL;
  edgec_status s;
  if (edgec_abi_version() != EDGEC_ABI_VERSION) {
    fprintf(stderr, "ABI %d, header %d\n", edgec_abi_version(), EDGEC_ABI_VERSION);
    return 1;
  }
  s = edgec_program_load("/nonexistent.edgec", &program);
  if (s != EDGEC_ERROR_ACCESS_FAILED || program != NULL || strstr(edgec_last_error(), "/nonexistent.edgec") == NULL) {
    fprintf(stderr, "expected AccessFailed, got %s: %s\n", edgec_status_name(s), edgec_last_error());
    return 1;
  }
  if (edgec_method_cancel(NULL) != EDGEC_ERROR_INVALID_ARGUMENT ||
      strcmp(edgec_status_name(EDGEC_ERROR_CANCELLED), "Cancelled") != 0) {
    fprintf(stderr, "edgec_method_cancel(NULL) or the Cancelled status is wrong\n");
    return 1;
  }
  if (argc > 1) {
    edgec_method* method = NULL;
    size_t i;
    void* buffers[16] = {0};
    size_t n;
    if (edgec_program_load(argv[1], &program) != EDGEC_OK || edgec_method_create(program, 1, &method) != EDGEC_OK) {
      fprintf(stderr, "%s\n", edgec_last_error());
      return 1;
    }
    n = edgec_program_num_inputs(program);
    for (i = 0; i < n && i < 16; ++i) {
      edgec_tensor_info info;
      int64_t shape[EDGEC_MAX_RANK];
      size_t count = 1;
      int d;
      edgec_program_input_info(program, i, &info);
      for (d = 0; d < info.rank; ++d) {
        shape[d] = info.dims[d].kind == EDGEC_DIM_STATIC ? info.dims[d].size : 1;
        count *= (size_t)shape[d];
      }
      buffers[i] = calloc(count + 1, edgec_dtype_size(info.dtype));
      if (edgec_method_set_input(method, i, buffers[i], info.dtype, shape, info.rank) != EDGEC_OK) {
        fprintf(stderr, "%s\n", edgec_last_error());
        return 1;
      }
    }
    if (edgec_method_execute(method) != EDGEC_OK) {
      fprintf(stderr, "%s\n", edgec_last_error());
      return 1;
    }
    printf("ran %s: %zu input(s), %zu output(s)\n", argv[1], n, edgec_program_num_outputs(program));
    for (i = 0; i < n && i < 16; ++i) free(buffers[i]);
    edgec_method_free(method);
    edgec_program_free(program);
  }
  printf("C API %s (ABI %d) from C99\n", edgec_version_string(), edgec_abi_version());
  return 0;
}
