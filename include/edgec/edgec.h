/* edgec C API: load a compiled program (.edgec), bind inputs, execute, read
 * outputs. Pure C (C99 and later, and C++), over the C++ runtime
 * (runtime::Program and runtime::Method); libedgec_c.so links the runtime in.
 *
 * Errors: every fallible call returns an edgec_status (EDGEC_OK is 0). The
 * message of the last call that failed on the calling thread is
 * edgec_last_error() (a thread-local string, as errno; a call that succeeds
 * leaves it as it was). No C++ exception crosses this API.
 *
 * Lifetimes: a program must outlive the methods created from it. A method
 * is one execution state (its own arena): several threads may each run their
 * own method of one program, never one method at a time from two threads.
 * Strings and dims returned for a program live as long as the program.
 *
 * execute neither allocates nor throws; set_input allocates only on
 * failure (for the message). edgec_method_cancel is the one call that may
 * come from another thread while a method runs.
 */
#ifndef EDGEC_EDGEC_H
#define EDGEC_EDGEC_H

#include <stddef.h>
#include <stdint.h>

#define EDGEC_VERSION_MAJOR 0
#define EDGEC_VERSION_MINOR 1
#define EDGEC_VERSION_PATCH 0

/* The ABI this header describes: bumped on any change to a declaration,
 * struct or enum value below. Compare with edgec_abi_version() at run time. */
#define EDGEC_ABI_VERSION 2

#if defined(_WIN32)
#define EDGEC_API
#else
#define EDGEC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the C++ runtime's edgec::Error values (src/base/error.h). */
typedef enum edgec_status {
  EDGEC_OK = 0x00,
  EDGEC_ERROR_INTERNAL = 0x01,      /* a bug in edgec, or an unexpected exception */
  EDGEC_ERROR_NOT_SUPPORTED = 0x02,
  EDGEC_ERROR_OUT_OF_MEMORY = 0x03,
  EDGEC_ERROR_CANCELLED = 0x04,        /* edgec_method_cancel stopped the run (ABI 2) */
  EDGEC_ERROR_INVALID_ARGUMENT = 0x10, /* a null pointer, an index out of range, ... */
  EDGEC_ERROR_INVALID_TYPE = 0x11,     /* a tensor of the wrong dtype */
  EDGEC_ERROR_INVALID_SHAPE = 0x12,    /* a tensor of the wrong rank or sizes */
  EDGEC_ERROR_INDEX_OUT_OF_RANGE = 0x13,
  EDGEC_ERROR_NOT_FOUND = 0x14,        /* no input or output of that name, ... */
  EDGEC_ERROR_INVALID_PROGRAM = 0x20,  /* a corrupt, truncated or inconsistent file */
  EDGEC_ERROR_ACCESS_FAILED = 0x21,    /* a file that cannot be opened, read or mapped */
  EDGEC_ERROR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  EDGEC_ERROR_DELEGATE_INVALID_HANDLE = 0x31,
  EDGEC_ERROR_DELEGATE_MISSING = 0x32
} edgec_status;

/* Element types: the values of the program file's (src/base/dtype.h). */
typedef enum edgec_dtype {
  EDGEC_FLOAT32 = 0,
  EDGEC_FLOAT16 = 1,
  EDGEC_INT64 = 2,
  EDGEC_INT32 = 3,
  EDGEC_INT8 = 4,
  EDGEC_UINT8 = 5,
  EDGEC_BOOL = 6, /* one byte, 0 or 1 */
  EDGEC_FLOAT64 = 7,
  EDGEC_INT16 = 8,
  EDGEC_UINT16 = 9,
  EDGEC_UINT32 = 10,
  EDGEC_UINT64 = 11,
  EDGEC_BFLOAT16 = 12 /* storage only: the upper 16 bits of a float32 (ONNX Cast converts it) */
} edgec_dtype;

/* The most dims a tensor has. */
#define EDGEC_MAX_RANK 8

typedef enum edgec_dim_kind {
  EDGEC_DIM_STATIC = 0,   /* a fixed size (size) */
  EDGEC_DIM_SYMBOLIC = 1, /* a named size (symbol), at most bound when bound >= 0 */
  EDGEC_DIM_DYNAMIC = 2   /* a size known only when the program runs */
} edgec_dim_kind;

/* One dim of a declared input or output. */
typedef struct edgec_dim {
  edgec_dim_kind kind;
  int64_t size;       /* STATIC: the size; otherwise -1 */
  int64_t bound;      /* SYMBOLIC, DYNAMIC: the upper bound, -1 when unbounded; STATIC: the size */
  const char* symbol; /* SYMBOLIC: the symbol's name ("batch"); otherwise NULL */
} edgec_dim;

/* A declared input or output. Pointers live as long as the program. */
typedef struct edgec_tensor_info {
  const char* name;
  edgec_dtype dtype;
  int rank;
  const edgec_dim* dims; /* rank entries */
} edgec_tensor_info;

/* An output after execute: a view into the method's memory, valid until the
 * next execute on that method, or its free. */
typedef struct edgec_tensor {
  const void* data;
  edgec_dtype dtype;
  int rank;
  const int64_t* shape;   /* rank entries */
  const int64_t* strides; /* rank entries, in elements (row-major contiguous unless is_contiguous is 0) */
  int is_contiguous;
  size_t nbytes; /* elements * element size */
} edgec_tensor;

typedef struct edgec_program edgec_program;
typedef struct edgec_method edgec_method;

/* Versions. */
EDGEC_API int edgec_abi_version(void);          /* EDGEC_ABI_VERSION of the library */
EDGEC_API const char* edgec_version_string(void); /* "MAJOR.MINOR.PATCH" of the library */

/* Errors. */
EDGEC_API const char* edgec_last_error(void); /* "" when no call failed on this thread */
EDGEC_API const char* edgec_status_name(edgec_status status); /* "InvalidShape", ... */
EDGEC_API size_t edgec_dtype_size(edgec_dtype dtype);         /* bytes per element; 0 if unknown */
EDGEC_API const char* edgec_dtype_name(edgec_dtype dtype);    /* "f32", ...; "?" if unknown */

/* Programs. load maps and validates the file; load_from_memory copies
 * `size` bytes (the caller's buffer may go at once). Both set *out to NULL
 * on failure. */
EDGEC_API edgec_status edgec_program_load(const char* path, edgec_program** out);
EDGEC_API edgec_status edgec_program_load_from_memory(const void* data, size_t size, edgec_program** out);
EDGEC_API void edgec_program_free(edgec_program* program); /* NULL is ignored */

EDGEC_API size_t edgec_program_num_inputs(const edgec_program* program);
EDGEC_API size_t edgec_program_num_outputs(const edgec_program* program);
EDGEC_API edgec_status edgec_program_input_info(const edgec_program* program, size_t index, edgec_tensor_info* out);
EDGEC_API edgec_status edgec_program_output_info(const edgec_program* program, size_t index,
                                                 edgec_tensor_info* out);
/* The index of the input (output) named `name`; EDGEC_ERROR_NOT_FOUND if none. */
EDGEC_API edgec_status edgec_program_find_input(const edgec_program* program, const char* name, size_t* index);
EDGEC_API edgec_status edgec_program_find_output(const edgec_program* program, const char* name, size_t* index);

/* Methods. num_threads: 1 to the machine's cores (0 means 1). */
EDGEC_API edgec_status edgec_method_create(const edgec_program* program, int num_threads, edgec_method** out);
EDGEC_API void edgec_method_free(edgec_method* method); /* NULL is ignored */

/* Binds input `index` to `data` (not copied: it must stay valid and
 * unchanged through execute), of `dtype` and `shape` (`rank` sizes,
 * row-major contiguous). Checked against the declared type: the message
 * names the input and both shapes. */
EDGEC_API edgec_status edgec_method_set_input(edgec_method* method, size_t index, const void* data,
                                              edgec_dtype dtype, const int64_t* shape, int rank);
EDGEC_API edgec_status edgec_method_set_input_by_name(edgec_method* method, const char* name, const void* data,
                                                      edgec_dtype dtype, const int64_t* shape, int rank);
/* Runs the program on the bound inputs. Neither allocates nor throws. */
EDGEC_API edgec_status edgec_method_execute(edgec_method* method);
/* Stops the execute in progress on `method` (called from another thread:
 * a watchdog, a control loop's supervisor): that execute returns
 * EDGEC_ERROR_CANCELLED at its next instruction or loop iteration (a
 * delegate call is not interrupted inside), and the method stays usable
 * (the next execute runs in full). A cancel while no execute is in progress
 * does nothing: it never stops a later one. Safe from any thread; neither
 * allocates nor blocks; the method must not be freed meanwhile. (ABI 2) */
EDGEC_API edgec_status edgec_method_cancel(edgec_method* method);
/* Output `index` of the last successful execute. */
EDGEC_API edgec_status edgec_method_output(const edgec_method* method, size_t index, edgec_tensor* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEC_EDGEC_H */
