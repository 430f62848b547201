/* Runs a compiled edgec program from C, through the C API alone
 * (edgec/edgec.h, libedgec_c.so):
 *
 *   run_model PROGRAM.edgec [INPUT0.bin INPUT1.bin ...]
 *
 * Prints each input and output with its declared type, binds input i to
 * the raw bytes of INPUTi.bin (native byte order, row-major; symbolic dims
 * take size 1) or, without files, to deterministic values, executes once
 * and prints every output's values ("NAME: v0 v1 ...", floats as %.9g). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <edgec/edgec.h>

static void print_type(const edgec_tensor_info* info) {
  int d;
  printf("%s %s[", info->name, edgec_dtype_name(info->dtype));
  for (d = 0; d < info->rank; ++d) {
    const edgec_dim* dim = &info->dims[d];
    if (d > 0) printf(", ");
    if (dim->kind == EDGEC_DIM_STATIC) printf("%lld", (long long)dim->size);
    else printf("%s", dim->symbol != NULL ? dim->symbol : "?");
    if (dim->kind != EDGEC_DIM_STATIC && dim->bound >= 0) printf("<=%lld", (long long)dim->bound);
  }
  printf("]\n");
}

/* Reads `size` bytes of `path` into `out`; 0 on success. */
static int read_file(const char* path, void* out, size_t size) {
  FILE* f = fopen(path, "rb");
  size_t got;
  char extra;
  if (f == NULL) return -1;
  got = fread(out, 1, size, f);
  if (got != size || fread(&extra, 1, 1, f) != 0) {
    fclose(f);
    fprintf(stderr, "error: %s: expected %zu bytes\n", path, size);
    return -1;
  }
  fclose(f);
  return 0;
}

static void print_value(const edgec_tensor* t, size_t i) {
  const void* p = t->data;
  switch (t->dtype) {
    case EDGEC_FLOAT32: printf("%.9g", (double)((const float*)p)[i]); break;
    case EDGEC_FLOAT64: printf("%.17g", ((const double*)p)[i]); break;
    case EDGEC_INT64: printf("%lld", (long long)((const int64_t*)p)[i]); break;
    case EDGEC_INT32: printf("%ld", (long)((const int32_t*)p)[i]); break;
    case EDGEC_BOOL:
    case EDGEC_UINT8: printf("%u", (unsigned)((const uint8_t*)p)[i]); break;
    default: printf("?"); break;
  }
}

int main(int argc, char** argv) {
  edgec_program* program = NULL;
  edgec_method* method = NULL;
  void** inputs = NULL;
  size_t num_inputs = 0, num_outputs = 0, i;
  int status = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: run_model PROGRAM.edgec [INPUT0.bin ...]\n");
    return 2;
  }
  if (edgec_abi_version() != EDGEC_ABI_VERSION) {
    fprintf(stderr, "error: libedgec_c ABI %d, this program was built for %d\n", edgec_abi_version(),
            EDGEC_ABI_VERSION);
    return 1;
  }
  if (edgec_program_load(argv[1], &program) != EDGEC_OK ||
      edgec_method_create(program, 1, &method) != EDGEC_OK) {
    fprintf(stderr, "error: %s\n", edgec_last_error());
    goto done;
  }
  num_inputs = edgec_program_num_inputs(program);
  num_outputs = edgec_program_num_outputs(program);
  if (argc > 2 && (size_t)(argc - 2) != num_inputs) {
    fprintf(stderr, "error: the program has %zu input(s), %d file(s) given\n", num_inputs, argc - 2);
    goto done;
  }
  inputs = calloc(num_inputs + 1, sizeof(void*));
  for (i = 0; i < num_inputs; ++i) {
    edgec_tensor_info info;
    int64_t shape[EDGEC_MAX_RANK];
    size_t count = 1, k;
    int d;
    edgec_program_input_info(program, i, &info);
    printf("input ");
    print_type(&info);
    for (d = 0; d < info.rank; ++d) {
      shape[d] = info.dims[d].kind == EDGEC_DIM_STATIC ? info.dims[d].size : 1;
      count *= (size_t)shape[d];
    }
    inputs[i] = calloc(count + 1, edgec_dtype_size(info.dtype));
    if (argc > 2) {
      if (read_file(argv[2 + i], inputs[i], count * edgec_dtype_size(info.dtype)) != 0) goto done;
    } else if (info.dtype == EDGEC_FLOAT32) {
      for (k = 0; k < count; ++k) ((float*)inputs[i])[k] = (float)(k % 7) * 0.25f - 0.5f;
    }
    if (edgec_method_set_input(method, i, inputs[i], info.dtype, shape, info.rank) != EDGEC_OK) {
      fprintf(stderr, "error: %s\n", edgec_last_error());
      goto done;
    }
  }
  if (edgec_method_execute(method) != EDGEC_OK) {
    fprintf(stderr, "error: %s\n", edgec_last_error());
    goto done;
  }
  for (i = 0; i < num_outputs; ++i) {
    edgec_tensor_info info;
    edgec_tensor t;
    size_t k, n;
    edgec_program_output_info(program, i, &info);
    printf("output ");
    print_type(&info);
    edgec_method_output(method, i, &t);
    n = t.nbytes / edgec_dtype_size(t.dtype);
    printf("%s:", info.name);
    for (k = 0; k < n; ++k) {
      printf(" ");
      print_value(&t, k);
    }
    printf("\n");
  }
  status = 0;
done:
  if (inputs != NULL) {
    for (i = 0; i < num_inputs; ++i) free(inputs[i]);
    free(inputs);
  }
  edgec_method_free(method);
  edgec_program_free(program);
  return status;
}
