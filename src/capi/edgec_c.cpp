// The C API (include/edgec/edgec.h) over runtime::Program and Method.
// Every entry point catches everything: no C++ exception crosses it. Errors
// are the runtime's edgec::Error values; their message is kept per thread
// (edgec_last_error), copied from the runtime's error_detail() on failure.
#include "edgec/edgec.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "base/error.h"
#include "runtime/method.h"
#include "runtime/program.h"

struct edgec_program {
  // A program loaded from memory keeps its own 64-byte-aligned copy.
  struct AlignedFree {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  std::unique_ptr<std::byte[], AlignedFree> bytes;
  std::unique_ptr<edgec::runtime::Program> program;
  // Per input and output: its dims for edgec_tensor_info, built at load.
  std::vector<std::vector<edgec_dim>> input_dims, output_dims;
};

struct edgec_method {
  const edgec_program* program = nullptr;
  std::unique_ptr<edgec::runtime::Method> method;
  bool executed = false;  // outputs are readable
};

namespace {

using edgec::Error;
namespace rt = edgec::runtime;

static_assert(EDGEC_OK == static_cast<int>(Error::Ok));
static_assert(EDGEC_ERROR_INTERNAL == static_cast<int>(Error::Internal));
static_assert(EDGEC_ERROR_NOT_SUPPORTED == static_cast<int>(Error::NotSupported));
static_assert(EDGEC_ERROR_OUT_OF_MEMORY == static_cast<int>(Error::OutOfMemory));
static_assert(EDGEC_ERROR_CANCELLED == static_cast<int>(Error::Cancelled));
static_assert(EDGEC_ERROR_INVALID_ARGUMENT == static_cast<int>(Error::InvalidArgument));
static_assert(EDGEC_ERROR_INVALID_TYPE == static_cast<int>(Error::InvalidType));
static_assert(EDGEC_ERROR_INVALID_SHAPE == static_cast<int>(Error::InvalidShape));
static_assert(EDGEC_ERROR_INDEX_OUT_OF_RANGE == static_cast<int>(Error::IndexOutOfRange));
static_assert(EDGEC_ERROR_NOT_FOUND == static_cast<int>(Error::NotFound));
static_assert(EDGEC_ERROR_INVALID_PROGRAM == static_cast<int>(Error::InvalidProgram));
static_assert(EDGEC_ERROR_ACCESS_FAILED == static_cast<int>(Error::AccessFailed));
static_assert(EDGEC_ERROR_DELEGATE_INVALID_COMPATIBILITY == static_cast<int>(Error::DelegateInvalidCompatibility));
static_assert(EDGEC_ERROR_DELEGATE_INVALID_HANDLE == static_cast<int>(Error::DelegateInvalidHandle));
static_assert(EDGEC_ERROR_DELEGATE_MISSING == static_cast<int>(Error::DelegateMissing));
static_assert(EDGEC_UINT64 == static_cast<int>(edgec::DType::UInt64));
static_assert(EDGEC_BFLOAT16 == static_cast<int>(edgec::DType::BFloat16) && edgec::kNumDTypes == 13);
static_assert(EDGEC_MAX_RANK == edgec::kMaxRank);

#define EDGEC_STR2(x) #x
#define EDGEC_STR(x) EDGEC_STR2(x)
constexpr const char* kVersion =
    EDGEC_STR(EDGEC_VERSION_MAJOR) "." EDGEC_STR(EDGEC_VERSION_MINOR) "." EDGEC_STR(EDGEC_VERSION_PATCH);

thread_local std::string last_error;

// Records `message` as this thread's last error and returns `status`. Never
// throws: when the message cannot be stored, a fixed one is kept.
edgec_status fail(edgec_status status, const char* prefix, const std::string& message) noexcept {
  try {
    last_error = prefix;
    last_error += message;
  } catch (...) {
    last_error.clear();  // does not allocate
  }
  return status;
}

// A runtime Error with the runtime's detail.
edgec_status fail_runtime(Error err, const char* prefix) noexcept {
  return fail(static_cast<edgec_status>(err), prefix, edgec::error_detail());
}

edgec_status fail_exception(const char* what) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return fail(EDGEC_ERROR_OUT_OF_MEMORY, what, ": out of memory");
  } catch (const std::exception& e) {
    return fail(EDGEC_ERROR_INTERNAL, what, std::string(": unexpected exception: ") + e.what());
  } catch (...) {
    return fail(EDGEC_ERROR_INTERNAL, what, ": unexpected exception");
  }
}

bool valid_dtype(edgec_dtype d) { return static_cast<int>(d) >= 0 && static_cast<int>(d) < edgec::kNumDTypes; }

std::vector<edgec_dim> dims_of(const rt::Program& p, const rt::IoSlot& io) {
  std::vector<edgec_dim> dims;
  for (const rt::DimInfo& d : p.slots()[static_cast<size_t>(io.slot)].type.dims) {
    edgec_dim e{};
    switch (d.kind) {
      case rt::DimInfo::Kind::Static:
        e = {EDGEC_DIM_STATIC, d.value, d.value, nullptr};
        break;
      case rt::DimInfo::Kind::Symbolic:
        e = {EDGEC_DIM_SYMBOLIC, -1, d.value,
             d.symbol >= 0 && static_cast<size_t>(d.symbol) < p.symbols().size()
                 ? p.symbols()[static_cast<size_t>(d.symbol)].c_str()
                 : nullptr};
        break;
      case rt::DimInfo::Kind::Dynamic:
        e = {EDGEC_DIM_DYNAMIC, -1, d.value, nullptr};
        break;
    }
    dims.push_back(e);
  }
  return dims;
}

edgec_status finish_load(edgec::Result<std::unique_ptr<rt::Program>>&& loaded, edgec_program& out,
                         const std::string& what) {
  if (!loaded.ok()) return fail_runtime(loaded.error(), ("cannot load " + what + ": ").c_str());
  out.program = std::move(*loaded);
  for (const rt::IoSlot& io : out.program->inputs()) out.input_dims.push_back(dims_of(*out.program, io));
  for (const rt::IoSlot& io : out.program->outputs()) out.output_dims.push_back(dims_of(*out.program, io));
  return EDGEC_OK;
}

edgec_status io_info(const edgec_program* program, size_t index, edgec_tensor_info* out, bool input) {
  const char* what = input ? "input" : "output";
  if (program == nullptr || out == nullptr)
    return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", std::string(what) + " info: null argument");
  const auto ios = input ? program->program->inputs() : program->program->outputs();
  if (index >= ios.size())
    return fail(EDGEC_ERROR_INVALID_ARGUMENT, "",
                std::string(what) + " index " + std::to_string(index) + " out of range: the program has " +
                    std::to_string(ios.size()) + " " + what + "(s)");
  const rt::IoSlot& io = ios[index];
  const std::vector<edgec_dim>& dims = (input ? program->input_dims : program->output_dims)[index];
  out->name = io.name.c_str();
  out->dtype = static_cast<edgec_dtype>(program->program->slots()[static_cast<size_t>(io.slot)].type.dtype);
  out->rank = static_cast<int>(dims.size());
  out->dims = dims.data();
  return EDGEC_OK;
}

edgec_status find_io(const edgec_program* program, const char* name, size_t* index, bool input) {
  const char* what = input ? "input" : "output";
  if (program == nullptr || name == nullptr || index == nullptr)
    return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", std::string("find ") + what + ": null argument");
  const auto ios = input ? program->program->inputs() : program->program->outputs();
  for (size_t i = 0; i < ios.size(); ++i) {
    if (ios[i].name == name) {
      *index = i;
      return EDGEC_OK;
    }
  }
  std::string names;
  for (const rt::IoSlot& io : ios) names += (names.empty() ? "'" : ", '") + io.name + "'";
  return fail(EDGEC_ERROR_NOT_FOUND, "",
              std::string("no ") + what + " named '" + name + "'; the program's " + what + "s: " +
                  (names.empty() ? "none" : names));
}

}  // namespace

extern "C" {

int edgec_abi_version(void) { return EDGEC_ABI_VERSION; }
const char* edgec_version_string(void) { return kVersion; }
const char* edgec_last_error(void) { return last_error.c_str(); }

const char* edgec_status_name(edgec_status status) {
  return edgec::error_name(static_cast<Error>(status));
}

size_t edgec_dtype_size(edgec_dtype dtype) {
  return valid_dtype(dtype) ? edgec::dtype_size(static_cast<edgec::DType>(dtype)) : 0;
}

const char* edgec_dtype_name(edgec_dtype dtype) {
  return valid_dtype(dtype) ? edgec::dtype_name(static_cast<edgec::DType>(dtype)).data() : "?";
}

edgec_status edgec_program_load(const char* path, edgec_program** out) {
  try {
    if (out == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "program load: null out");
    *out = nullptr;
    if (path == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "program load: null path");
    auto p = std::make_unique<edgec_program>();
    const edgec_status s = finish_load(rt::Program::load(path), *p, path);
    if (s != EDGEC_OK) return s;
    *out = p.release();
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("program load");
  }
}

edgec_status edgec_program_load_from_memory(const void* data, size_t size, edgec_program** out) {
  try {
    if (out == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "program load from memory: null out");
    *out = nullptr;
    if (data == nullptr && size > 0)
      return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "program load from memory: null data");
    auto p = std::make_unique<edgec_program>();
    p->bytes.reset(static_cast<std::byte*>(::operator new[](size == 0 ? 1 : size, std::align_val_t(64))));
    if (size > 0) std::memcpy(p->bytes.get(), data, size);
    const edgec_status s =
        finish_load(rt::Program::load_from_bytes(std::span<const std::byte>(p->bytes.get(), size)), *p, "memory");
    if (s != EDGEC_OK) return s;
    *out = p.release();
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("program load from memory");
  }
}

void edgec_program_free(edgec_program* program) { delete program; }

size_t edgec_program_num_inputs(const edgec_program* program) {
  return program == nullptr ? 0 : program->program->inputs().size();
}

size_t edgec_program_num_outputs(const edgec_program* program) {
  return program == nullptr ? 0 : program->program->outputs().size();
}

edgec_status edgec_program_input_info(const edgec_program* program, size_t index, edgec_tensor_info* out) {
  try {
    return io_info(program, index, out, true);
  } catch (...) {
    return fail_exception("input info");
  }
}

edgec_status edgec_program_output_info(const edgec_program* program, size_t index, edgec_tensor_info* out) {
  try {
    return io_info(program, index, out, false);
  } catch (...) {
    return fail_exception("output info");
  }
}

edgec_status edgec_program_find_input(const edgec_program* program, const char* name, size_t* index) {
  try {
    return find_io(program, name, index, true);
  } catch (...) {
    return fail_exception("find input");
  }
}

edgec_status edgec_program_find_output(const edgec_program* program, const char* name, size_t* index) {
  try {
    return find_io(program, name, index, false);
  } catch (...) {
    return fail_exception("find output");
  }
}

edgec_status edgec_method_create(const edgec_program* program, int num_threads, edgec_method** out) {
  try {
    if (out == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "method create: null out");
    *out = nullptr;
    if (program == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "method create: null program");
    auto m = std::make_unique<edgec_method>();
    m->program = program;
    auto created = rt::Method::create(*program->program, num_threads == 0 ? 1 : num_threads);
    if (!created.ok()) return fail_runtime(created.error(), "cannot prepare the program: ");
    m->method = std::move(*created);
    *out = m.release();
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("method create");
  }
}

void edgec_method_free(edgec_method* method) { delete method; }

edgec_status edgec_method_set_input(edgec_method* method, size_t index, const void* data, edgec_dtype dtype,
                                    const int64_t* shape, int rank) {
  try {
    if (method == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "set input: null method");
    if (rank < 0 || rank > EDGEC_MAX_RANK)
      return fail(EDGEC_ERROR_INVALID_SHAPE, "",
                  "set input " + std::to_string(index) + ": rank " + std::to_string(rank) + " is not 0 to " +
                      std::to_string(EDGEC_MAX_RANK));
    if (rank > 0 && shape == nullptr)
      return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "set input " + std::to_string(index) + ": null shape");
    if (!valid_dtype(dtype))
      return fail(EDGEC_ERROR_INVALID_TYPE, "",
                  "set input " + std::to_string(index) + ": unknown dtype " + std::to_string(static_cast<int>(dtype)));
    // A view of the caller's memory, as the C++ runtime binds it (no copy,
    // no allocation unless the binding fails).
    edgec::Tensor t;
    t.dtype = static_cast<edgec::DType>(dtype);
    t.rank = rank;
    for (int i = 0; i < rank; ++i) t.sizes[static_cast<size_t>(i)] = shape[i];
    t.set_contiguous_strides();
    t.data = const_cast<void*>(data);
    t.capacity = 0;
    const Error err = method->method->set_input(index, t);
    if (err != Error::Ok) return fail_runtime(err, "");
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("set input");
  }
}

edgec_status edgec_method_set_input_by_name(edgec_method* method, const char* name, const void* data,
                                            edgec_dtype dtype, const int64_t* shape, int rank) {
  try {
    if (method == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "set input: null method");
    size_t index = 0;
    const edgec_status s = find_io(method->program, name, &index, true);
    if (s != EDGEC_OK) return s;
    return edgec_method_set_input(method, index, data, dtype, shape, rank);
  } catch (...) {
    return fail_exception("set input");
  }
}

edgec_status edgec_method_execute(edgec_method* method) {
  try {
    if (method == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "execute: null method");
    method->executed = false;
    const Error err = method->method->execute();
    if (err != Error::Ok) return fail_runtime(err, "execute: ");
    method->executed = true;
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("execute");
  }
}

// From another thread: touches only the Method's atomics, and sets no
// error message (that is the calling thread's, and allocates).
edgec_status edgec_method_cancel(edgec_method* method) {
  if (method == nullptr || !method->method) return EDGEC_ERROR_INVALID_ARGUMENT;
  method->method->cancel();
  return EDGEC_OK;
}

edgec_status edgec_method_output(const edgec_method* method, size_t index, edgec_tensor* out) {
  try {
    if (method == nullptr || out == nullptr) return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "output: null argument");
    const size_t n = method->method->num_outputs();
    if (index >= n)
      return fail(EDGEC_ERROR_INVALID_ARGUMENT, "",
                  "output index " + std::to_string(index) + " out of range: the program has " + std::to_string(n) +
                      " output(s)");
    if (!method->executed)
      return fail(EDGEC_ERROR_INVALID_ARGUMENT, "", "output " + std::to_string(index) + ": no successful execute yet");
    const edgec::Tensor& t = method->method->output(index);
    out->data = t.data;
    out->dtype = static_cast<edgec_dtype>(t.dtype);
    out->rank = t.rank;
    out->shape = t.sizes.data();
    out->strides = t.strides.data();
    out->is_contiguous = t.is_contiguous() ? 1 : 0;
    out->nbytes = t.nbytes();
    return EDGEC_OK;
  } catch (...) {
    return fail_exception("output");
  }
}

}  // extern "C"
