// edgec._edgec: the Python module's native part (pybind11). It wraps the
// driver (src/driver/driver.h: compiling as `edgec compile` does, binding
// inputs by name, the reports of `inspect --json` and `bench --json`) and
// the runtime (Program, Method). python/edgec/__init__.py is the public
// face; python/edgec/__init__.pyi documents the types.
//
// Inputs of the program's dtype that are C-contiguous, aligned and in the
// machine's byte order are bound without a copy: the kernels read the numpy
// buffer. Anything else of the right dtype is copied once
// (numpy.ascontiguousarray); a wrong dtype is an error, never a cast.
// execute runs with the GIL released; a Method runs one call at a time, and
// Method.cancel, from another thread, stops the call in progress.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "compiler/pipeline.h"
#include "driver/driver.h"
#include "io/npz.h"
#include "runtime/method.h"
#include "runtime/program.h"

namespace py = pybind11;

namespace edgec::python {
namespace {

// ---------------------------------------------------------------- errors

// The exception classes, made in PYBIND11_MODULE (new references kept for
// the module's life).
struct Exceptions {
  PyObject* error = nullptr;           // edgec.Error(Exception)
  PyObject* compile_error = nullptr;   // edgec.CompileError(Error)
  PyObject* usage_error = nullptr;     // edgec.UsageError(Error, ValueError)
  PyObject* invalid_program = nullptr; // edgec.InvalidProgram(Error)
  PyObject* invalid_input = nullptr;   // edgec.InvalidInput(Error, ValueError)
  PyObject* execution_error = nullptr; // edgec.ExecutionError(Error)
};
Exceptions exc;

/// An error to raise as `type`, with `code` (a runtime Error's name, or
/// none) as the exception's `code` attribute.
struct PyError : std::exception {
  PyObject* type;
  std::string message;
  std::string code;
  PyError(PyObject* t, std::string m, std::string c = "") : type(t), message(std::move(m)), code(std::move(c)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

void set_python_error(PyObject* type, const std::string& message, const std::string& code) {
  py::object cls = py::reinterpret_borrow<py::object>(type);
  py::object e = cls(message);
  e.attr("code") = code.empty() ? py::object(py::none()) : py::object(py::str(code));
  PyErr_SetObject(type, e.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const PyError& e) {
    set_python_error(e.type, e.message, e.code);
  } catch (const driver::InputError& e) {
    set_python_error(exc.invalid_input, e.what(), error_name(e.error()));
  } catch (const driver::RuntimeFailure& e) {
    set_python_error(exc.execution_error, e.what(), error_name(e.error()));
  } catch (const driver::UsageError& e) {
    set_python_error(exc.usage_error, e.what(), "");
  } catch (const CompileError& e) {
    set_python_error(exc.compile_error, e.what(), "");
  } catch (const io::IoError& e) {
    set_python_error(exc.compile_error, e.what(), "");
  } catch (const py::error_already_set&) {
    throw;  // Python's own errors, and pybind11's, pass on unchanged.
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const std::exception& e) {
    set_python_error(exc.error, e.what(), "");
  }
}

[[noreturn]] void usage(const std::string& message) { throw PyError(exc.usage_error, message); }

// ---------------------------------------------------------------- dtypes

const char* numpy_dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::Int32: return "int32";
    case DType::Int16: return "int16";
    case DType::Int8: return "int8";
    case DType::UInt64: return "uint64";
    case DType::UInt32: return "uint32";
    case DType::UInt16: return "uint16";
    case DType::UInt8: return "uint8";
    case DType::Bool: return "bool";
    // numpy has no bfloat16: its bits (a uint16 input binds to a bf16 one as
    // bits, driver/bind.cpp).
    case DType::BFloat16: return "uint16";
  }
  return "float32";
}

// numpy's dtype objects by DType, made once at import (runs make outputs
// of them on every call).
PyObject* dtypes[kNumDTypes] = {};

py::dtype numpy_dtype(DType d) { return py::reinterpret_borrow<py::dtype>(dtypes[static_cast<int>(d)]); }

/// The DType of a numpy dtype (any byte order), or false.
bool edgec_dtype(const py::dtype& dt, DType* out) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  switch (kind) {
    case 'f':
      if (size == 4) return *out = DType::Float32, true;
      if (size == 2) return *out = DType::Float16, true;
      if (size == 8) return *out = DType::Float64, true;
      return false;
    case 'i':
      if (size == 8) return *out = DType::Int64, true;
      if (size == 4) return *out = DType::Int32, true;
      if (size == 2) return *out = DType::Int16, true;
      if (size == 1) return *out = DType::Int8, true;
      return false;
    case 'u':
      if (size == 8) return *out = DType::UInt64, true;
      if (size == 4) return *out = DType::UInt32, true;
      if (size == 2) return *out = DType::UInt16, true;
      if (size == 1) return *out = DType::UInt8, true;
      return false;
    case 'b': return *out = DType::Bool, true;
    default: return false;
  }
}

/// Whether `dt` is in the machine's byte order.
bool native_order(const py::dtype& dt) {
  const char order = py::detail::array_descriptor_proxy(dt.ptr())->byteorder;
  return order == '=' || order == '|' || (order == '<' && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ||
         (order == '>' && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/// Bytes of a C-contiguous, native, aligned copy of `a` (for fixed inputs).
TensorData tensor_data(const std::string& name, const py::handle& value) {
  py::module_ np = py::module_::import("numpy");
  py::array a = np.attr("asarray")(value);
  DType d;
  if (!edgec_dtype(a.dtype(), &d))
    usage("fix_inputs: '" + name + "': unsupported dtype " + py::str(a.dtype()).cast<std::string>());
  // (numpy.array, not ascontiguousarray, which makes a 0-d array 1-d.)
  a = np.attr("array")(a, py::arg("dtype") = a.dtype().attr("newbyteorder")("="), py::arg("order") = "C");
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(a.nbytes()));
  if (a.nbytes() > 0) std::memcpy(bytes->data(), a.data(), bytes->size());
  return TensorData{TensorType::of(d, shape), std::move(bytes)};
}

// ---------------------------------------------------------------- Program

struct AlignedDelete {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct PyProgram {
  std::unique_ptr<std::byte[], AlignedDelete> storage;  // A compiled program's bytes (null when mapped).
  std::unique_ptr<runtime::Program> program;
  std::string file;  // The path it was loaded from; empty when compiled in memory.
  double load_ms = 0;

  const runtime::Program& get() const { return *program; }
  std::string label() const { return file.empty() ? std::string("<compiled program>") : file; }
};

std::shared_ptr<PyProgram> load_program(const std::string& path) {
  auto p = std::make_shared<PyProgram>();
  p->file = path;
  const Clock::time_point start = Clock::now();
  Result<std::unique_ptr<runtime::Program>> loaded = runtime::Program::load(path);
  p->load_ms = ms_since(start);
  if (!loaded.ok())
    throw PyError(exc.invalid_program, "cannot load " + path + ": " + error_detail() + " (" + error_name(loaded.error()) + ")",
                  error_name(loaded.error()));
  p->program = std::move(*loaded);
  return p;
}

std::shared_ptr<PyProgram> program_from_bytes(const std::vector<std::byte>& bytes) {
  auto p = std::make_shared<PyProgram>();
  // 64-byte aligned, as a mapped file is, so constants are read in place.
  p->storage.reset(static_cast<std::byte*>(::operator new[](std::max<size_t>(bytes.size(), 1), std::align_val_t(64))));
  std::memcpy(p->storage.get(), bytes.data(), bytes.size());
  const Clock::time_point start = Clock::now();
  auto loaded = runtime::Program::load_from_bytes(std::span<const std::byte>(p->storage.get(), bytes.size()));
  p->load_ms = ms_since(start);
  if (!loaded.ok())
    throw PyError(exc.invalid_program, "cannot load the compiled program: " + error_detail() + " (" +
                                           error_name(loaded.error()) + ")",
                  error_name(loaded.error()));
  p->program = std::move(*loaded);
  return p;
}

/// `v` as a Python int: an int or anything with __index__ (numpy's
/// integers), but not a bool.
bool as_int(py::handle v, py::int_* out) {
  if (py::isinstance<py::bool_>(v) || PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) return false;
  if (py::isinstance(v, py::module_::import("numpy").attr("bool_"))) return false;
  PyObject* n = PyNumber_Index(v.ptr());
  if (!n) throw py::error_already_set();
  *out = py::reinterpret_steal<py::int_>(n);
  return true;
}

/// The sizes of a {name: int} dict, each 1 to INT64_MAX (as --dim takes).
std::map<std::string, int64_t> dim_map(const py::object& obj, const char* what) {
  std::map<std::string, int64_t> out;
  if (obj.is_none()) return out;
  if (!py::isinstance<py::dict>(obj)) usage(std::string(what) + ": expected a dict of name to size");
  for (auto [k, v] : obj.cast<py::dict>()) {
    if (!py::isinstance<py::str>(k)) usage(std::string(what) + ": expected names (str), got " + py::repr(k).cast<std::string>());
    const std::string name = k.cast<std::string>();
    py::int_ n;
    if (!as_int(v, &n))
      usage(std::string(what) + ": '" + name + "': expected an integer, got " + py::repr(v).cast<std::string>());
    if (n < py::int_(1) || n > py::int_(std::numeric_limits<int64_t>::max()))
      usage(std::string(what) + ": '" + name + "': expected 1 to " + std::to_string(std::numeric_limits<int64_t>::max()) +
            ", got " + py::str(n).cast<std::string>());
    out[name] = n.cast<int64_t>();
  }
  return out;
}

/// Input shapes of a {input: tuple of int} dict, sizes from `min_size`.
std::map<std::string, std::vector<int64_t>> shape_map(const py::object& obj, const char* what, int64_t min_size) {
  std::map<std::string, std::vector<int64_t>> out;
  if (obj.is_none()) return out;
  if (!py::isinstance<py::dict>(obj)) usage(std::string(what) + ": expected a dict of input name to shape");
  for (auto [k, v] : obj.cast<py::dict>()) {
    if (!py::isinstance<py::str>(k)) usage(std::string(what) + ": expected input names (str), got " + py::repr(k).cast<std::string>());
    const std::string name = k.cast<std::string>();
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v))
      usage(std::string(what) + ": '" + name + "': expected a tuple of sizes, got " + py::repr(v).cast<std::string>());
    std::vector<int64_t>& dims = out[name];
    for (py::handle d : v.cast<py::sequence>()) {
      py::int_ n;
      if (!as_int(d, &n))
        usage(std::string(what) + ": '" + name + "': expected integer sizes, got " + py::repr(v).cast<std::string>());
      if (n < py::int_(min_size) || n > py::int_(std::numeric_limits<int64_t>::max()))
        usage(std::string(what) + ": '" + name + "': expected sizes from " + std::to_string(min_size) + ", got " +
              py::repr(v).cast<std::string>());
      dims.push_back(n.cast<int64_t>());
    }
  }
  return out;
}

std::shared_ptr<PyProgram> compile(const py::object& model, const std::string& backends, const py::object& dims,
                                   const py::object& max_dims, const py::object& shapes,
                                   const py::object& max_shapes, const py::object& fix_inputs) {
  LowerOptions lower;
  lower.dim_sizes = dim_map(dims, "dims");
  lower.dim_bounds = dim_map(max_dims, "max_dims");
  driver::ImportFlags flags;
  flags.shapes = shape_map(shapes, "shapes", 0);
  flags.max_shapes = shape_map(max_shapes, "max_shapes", 1);
  if (py::isinstance<py::str>(fix_inputs)) {
    flags.fixed_inputs = fix_inputs.cast<std::string>();
  } else if (py::isinstance<py::dict>(fix_inputs)) {
    for (auto [k, v] : fix_inputs.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k)) usage("fix_inputs: expected input names (str), got " + py::repr(k).cast<std::string>());
      flags.fixed_values[k.cast<std::string>()] = tensor_data(k.cast<std::string>(), v);
    }
  } else if (!fix_inputs.is_none()) {
    usage("fix_inputs: expected a dict of input name to array, or the path of an .npz");
  }
  const bool from_bytes = py::isinstance<py::bytes>(model);
  std::string path, bytes;
  if (from_bytes) bytes = model.cast<std::string>();
  else path = model.cast<std::string>();
  std::vector<std::byte> file;
  {
    py::gil_scoped_release release;
    std::unique_ptr<Program> program =
        from_bytes ? driver::compile_onnx_bytes(std::as_bytes(std::span(bytes)), "<model bytes>", lower, flags, backends)
                   : driver::compile_model(path, lower, flags, backends);
    file = serialize_program(*program);
  }
  return program_from_bytes(file);
}

/// A TensorInfo (python/edgec/_types.py) for a declared type.
py::object tensor_info(const runtime::Program& p, const runtime::IoSlot& io) {
  py::module_ types = py::module_::import("edgec._types");
  const runtime::TypeInfo& t = p.slots()[static_cast<size_t>(io.slot)].type;
  py::list shape;
  for (const runtime::DimInfo& d : t.dims) {
    if (d.kind == runtime::DimInfo::Kind::Static) {
      shape.append(py::int_(d.value));
      continue;
    }
    py::object name = d.kind == runtime::DimInfo::Kind::Symbolic && d.symbol >= 0
                          ? py::object(py::str(p.symbols()[static_cast<size_t>(d.symbol)]))
                          : py::object(py::none());
    py::object bound = d.value >= 0 ? py::object(py::int_(d.value)) : py::object(py::none());
    shape.append(types.attr("Dim")(name, bound));
  }
  return types.attr("TensorInfo")(io.name, numpy_dtype(t.dtype), py::tuple(shape), t.str(p.symbols()));
}

/// nlohmann JSON as Python objects (dicts keep the JSON's order).
py::object to_python(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      py::list l;
      for (const auto& e : j) l.append(to_python(e));
      return l;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return d;
    }
    default: return py::none();
  }
}

// ---------------------------------------------------------------- Method

struct PyMethod {
  std::shared_ptr<PyProgram> program;  // Outlives the Method.
  std::unique_ptr<runtime::Method> method;
  int threads = 1;
  double create_ms = 0;
  std::mutex running;  // One call at a time per Method.
};

int check_threads(const py::object& threads) {
  const int max = runtime::Method::max_threads();
  if (threads.is_none()) return 1;
  py::int_ n;
  if (!as_int(threads, &n)) usage("threads: expected an integer, got " + py::repr(threads).cast<std::string>());
  if (n < py::int_(1) || n > py::int_(max))
    usage("threads: expected 1 to " + std::to_string(max) + " (the cores of this machine), got " +
          py::str(n).cast<std::string>());
  return n.cast<int>();
}

std::unique_ptr<PyMethod> make_method(std::shared_ptr<PyProgram> program, const py::object& threads_arg) {
  auto m = std::make_unique<PyMethod>();
  m->threads = check_threads(threads_arg);
  m->program = std::move(program);
  const Clock::time_point start = Clock::now();
  Result<std::unique_ptr<runtime::Method>> created = [&] {
    py::gil_scoped_release release;
    return runtime::Method::create(m->program->get(), m->threads);
  }();
  m->create_ms = ms_since(start);
  if (!created.ok())
    throw driver::RuntimeFailure("cannot prepare " + m->program->label() + ": " + error_detail() + " (" +
                                     error_name(created.error()) + ")",
                                 created.error());
  m->method = std::move(*created);
  return m;
}

/// The feeds as arrays the kernels can read in place, bound to `m`'s
/// inputs by name (driver::bind_inputs: the CLI's rules and messages, "feeds"
/// in place of the npz path). `keep` holds the arrays through execute.
void bind_feeds(PyMethod& m, const py::object& feeds, std::vector<py::array>& keep) {
  const runtime::Program& p = m.program->get();
  std::vector<std::pair<std::string, py::object>> items;
  if (py::isinstance<py::dict>(feeds)) {
    for (auto [k, v] : feeds.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k))
        throw PyError(exc.invalid_input, "feeds: expected input names (str), got " + py::repr(k).cast<std::string>(),
                      "InvalidArgument");
      items.emplace_back(k.cast<std::string>(), py::reinterpret_borrow<py::object>(v));
    }
  } else if (py::isinstance<py::sequence>(feeds) && !py::isinstance<py::str>(feeds) &&
             !py::isinstance<py::array>(feeds)) {
    py::sequence seq = feeds.cast<py::sequence>();
    if (seq.size() != p.inputs().size())
      throw PyError(exc.invalid_input,
                    "feeds: expected " + std::to_string(p.inputs().size()) + " array(s), one per input in order, got " +
                        std::to_string(seq.size()),
                    "InvalidArgument");
    for (size_t i = 0; i < seq.size(); ++i) items.emplace_back(p.inputs()[i].name, seq[i]);
  } else {
    throw PyError(exc.invalid_input, "feeds: expected a dict of input name to array, or a list in input order",
                  "InvalidArgument");
  }
  std::vector<driver::NamedTensor> named;
  named.reserve(items.size());
  keep.reserve(items.size());
  for (auto& [name, value] : items) {
    // Not an array: numpy.asarray's (then of its dtype, which must be the input's).
    py::array a = py::isinstance<py::array>(value) ? py::reinterpret_borrow<py::array>(value) : py::array(value);
    DType d;
    if (!edgec_dtype(a.dtype(), &d)) {
      std::string expected = "?";
      for (const auto& in : p.inputs())
        if (in.name == name) expected = p.slots()[static_cast<size_t>(in.slot)].type.str(p.symbols());
      std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
      throw PyError(exc.invalid_input,
                    "feeds: input '" + name + "': expected " + expected + ", got " +
                        py::str(a.dtype()).cast<std::string>() + shape_string(shape) + " (InvalidType)",
                    "InvalidType");
    }
    // Read in place when the layout allows; otherwise one copy, in the
    // machine's byte order (the same dtype: never a cast).
    const int flags = a.flags();
    if (!(flags & py::array::c_style) || !(flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) || !native_order(a.dtype()))
      a = py::module_::import("numpy").attr("array")(a, py::arg("dtype") = a.dtype().attr("newbyteorder")("="), py::arg("order") = "C");
    if (a.ndim() > kMaxRank)
      throw PyError(exc.invalid_input,
                    "feeds: input '" + name + "' has rank " + std::to_string(a.ndim()) + ", more than " +
                        std::to_string(kMaxRank),
                    "InvalidShape");
    std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
    keep.push_back(a);
    named.push_back({name, make_tensor(d, shape, const_cast<void*>(a.data()), 0)});
  }
  // Names point into `items`, alive until here.
  driver::bind_inputs(p, *m.method, named, "feeds");
}

/// A copy of output `i` as a numpy array.
py::array output_array(const runtime::Method& method, size_t i) {
  const Tensor& t = method.output(i);
  std::vector<py::ssize_t> shape(t.sizes.begin(), t.sizes.begin() + t.rank);
  py::array out(numpy_dtype(t.dtype), shape);
  if (t.nbytes() == 0) return out;
  if (t.is_contiguous()) {
    std::memcpy(out.mutable_data(), t.data, t.nbytes());
  } else {
    io::NpyArray a = io::NpyArray::from_tensor("", t);
    std::memcpy(out.mutable_data(), a.data.data(), a.data.size());
  }
  return out;
}

std::unique_lock<std::mutex> lock_method(PyMethod& m, const char* what) {
  std::unique_lock<std::mutex> lock(m.running, std::try_to_lock);
  if (!lock.owns_lock())
    throw PyError(exc.error, std::string(what) +
                                 ": this Method is running in another thread; give each thread its own "
                                 "Method (Program.method())");
  return lock;
}

py::dict run(PyMethod& m, const py::object& feeds) {
  auto lock = lock_method(m, "Method.run");
  std::vector<py::array> keep;
  bind_feeds(m, feeds, keep);
  Error err;
  {
    py::gil_scoped_release release;
    err = m.method->execute();
  }
  if (err != Error::Ok) driver::runtime_error("execution failed", err);
  const runtime::Program& p = m.program->get();
  py::dict out;
  for (size_t i = 0; i < p.outputs().size(); ++i) out[py::str(p.outputs()[i].name)] = output_array(*m.method, i);
  return out;
}

py::dict bench(PyMethod& m, const py::object& feeds, const py::object& iters, const py::object& warmup,
               bool profile) {
  auto check = [](const py::object& v, const char* what, int64_t lo) {
    py::int_ n;
    if (!as_int(v, &n)) usage(std::string(what) + ": expected an integer, got " + py::repr(v).cast<std::string>());
    if (n < py::int_(lo) || n > py::int_(driver::kMaxBenchRuns))
      usage(std::string(what) + ": expected " + std::to_string(lo) + " to " + std::to_string(driver::kMaxBenchRuns) +
            ", got " + py::str(n).cast<std::string>());
    return n.cast<int>();
  };
  driver::BenchSettings o;
  o.program = m.program->label();
  o.iters = check(iters, "iters", 1);
  o.warmup = check(warmup, "warmup", 0);
  o.threads = m.threads;
  o.json = true;
  o.profile = profile;
  driver::check_bench_memory(o);
  auto lock = lock_method(m, "Method.bench");
  std::vector<py::array> keep;
  bind_feeds(m, feeds, keep);
  nlohmann::ordered_json j;
  {
    py::gil_scoped_release release;
    const runtime::Program& p = m.program->get();
    const driver::BenchResult r = driver::bench_method(p, *m.method, o, m.program->load_ms + m.create_ms);
    j = driver::bench_json(o, p, r);
  }
  return to_python(j).cast<py::dict>();
}

}  // namespace
}  // namespace edgec::python

using namespace edgec;
using namespace edgec::python;

PYBIND11_MODULE(_edgec, m) {
  m.doc() = "edgec's native module: use the package `edgec`, which re-exports it.";

  // The exception hierarchy; every error edgec raises is an edgec.Error.
  auto make = [&](const char* name, const char* doc, py::tuple bases) {
    const std::string full = std::string("edgec.") + name;
    PyObject* e = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
    if (!e) throw py::error_already_set();
    m.add_object(name, py::handle(e));
    return e;  // The new reference stays with `exc` for the module's life.
  };
  exc.error = make("Error",
                   "Base class of every error edgec raises. `code` is the runtime's error name "
                   "(e.g. 'InvalidShape') where the runtime reported it, else None.",
                   py::make_tuple(py::handle(PyExc_Exception)));
  py::handle base(exc.error);
  exc.compile_error = make("CompileError",
                           "The model could not be read or compiled (the messages of `edgec compile`).",
                           py::make_tuple(base));
  exc.usage_error = make("UsageError", "An argument's value is not what it takes (as the CLI's usage errors).",
                         py::make_tuple(base, py::handle(PyExc_ValueError)));
  exc.invalid_program = make("InvalidProgram", "A program file could not be loaded: corrupt, truncated, or for "
                                               "operators or backends this runtime lacks.",
                             py::make_tuple(base));
  exc.invalid_input = make("InvalidInput",
                           "Feeds that do not fit the program: a missing or extra name, a wrong dtype or shape "
                           "(the message names the input and both shapes).",
                           py::make_tuple(base, py::handle(PyExc_ValueError)));
  exc.execution_error = make("ExecutionError", "Preparing or running a program failed.", py::make_tuple(base));
  py::register_exception_translator(&translate);
  for (int d = 0; d < kNumDTypes; ++d)
    dtypes[d] = py::dtype(numpy_dtype_name(static_cast<DType>(d))).release().ptr();

  // Declared first, so that signatures naming Method read `edgec._edgec.Method`.
  py::class_<PyMethod> method_class(m, "Method", R"doc(
One execution state of a Program: its own arena and delegate handles. Runs
one call at a time; give each thread its own Method.)doc");

  py::class_<PyProgram, std::shared_ptr<PyProgram>>(m, "Program", R"doc(
A compiled program: loaded once (mapped from a file, or held in memory after
edgec.compile), read-only, shared by any number of Methods.)doc")
      .def_property_readonly(
          "inputs",
          [](const PyProgram& p) {
            py::list l;
            for (const auto& io : p.get().inputs()) l.append(tensor_info(p.get(), io));
            return l;
          },
          "The inputs, in order: TensorInfo(name, dtype, shape, type).")
      .def_property_readonly(
          "outputs",
          [](const PyProgram& p) {
            py::list l;
            for (const auto& io : p.get().outputs()) l.append(tensor_info(p.get(), io));
            return l;
          },
          "The outputs, in order: TensorInfo(name, dtype, shape, type).")
      .def_property_readonly(
          "file", [](const PyProgram& p) { return p.file.empty() ? py::object(py::none()) : py::object(py::str(p.file)); },
          "The path it was loaded from (None when compiled in memory).")
      .def_property_readonly("file_bytes", [](const PyProgram& p) { return p.get().file_size(); },
                             "The size of the program file, in bytes.")
      .def_property_readonly("load_ms", [](const PyProgram& p) { return p.load_ms; },
                             "How long loading and validating took, in milliseconds.")
      .def(
          "save",
          [](const PyProgram& p, const py::object& path_like) {
            const std::string path = py::module_::import("os").attr("fspath")(path_like).cast<std::string>();
            const auto bytes = p.get().bytes();
            driver::write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
          },
          py::arg("path"),
          "Writes the program file to `path` (a temporary file, then a rename, as `edgec compile -o` does).")
      .def(
          "inspect",
          [](const PyProgram& p) { return to_python(driver::inspect_json(p.get(), p.label())); },
          "What `edgec inspect --json` prints: signature, operators, constants, memory plan, delegates, and why "
          "each backend refused each call left on the portable kernels.")
      .def(
          "method",
          [](std::shared_ptr<PyProgram> p, const py::object& threads) { return make_method(std::move(p), threads); },
          py::arg("threads") = py::none(),
          "An execution state of this program (its own memory): one per thread that runs it. `threads`: 1 to "
          "edgec.max_threads() threads the kernels and delegates may use; default 1, as `edgec run`.")
      .def("__repr__", [](const PyProgram& p) {
        std::string s = "<edgec.Program " + p.label() + ": ";
        const auto& prog = p.get();
        auto sig = [&](std::span<const runtime::IoSlot> ios) {
          std::string out;
          for (const auto& io : ios)
            out += (out.empty() ? "" : ", ") + io.name + ": " +
                   prog.slots()[static_cast<size_t>(io.slot)].type.str(prog.symbols());
          return out;
        };
        return s + "(" + sig(prog.inputs()) + ") -> (" + sig(prog.outputs()) + ")>";
      });

  method_class.def("run", &run, py::arg("feeds"), R"doc(
Runs the program on `feeds` and returns {output name: numpy array}.

`feeds`: a dict {input name: array}, or a list of arrays in input order.
Arrays of the input's dtype that are C-contiguous (and aligned, in the
machine's byte order) are read in place, without a copy; other layouts of
that dtype are copied once, in C order. A wrong dtype is an
error, never a cast. The outputs are copies (the runtime's output buffers
are reused by the next run). The GIL is released while the program runs.

Raises edgec.InvalidInput for a missing, extra or mismatched input (the
message names the input and both shapes), edgec.ExecutionError when a
kernel fails.)doc")
      .def("bench", &bench, py::arg("feeds"), py::arg("iters") = 100, py::arg("warmup") = 10,
           py::arg("profile") = false, R"doc(
Times the program as `edgec bench --json` does and returns its figures as a
dict: median_ms, p90_ms, min_ms, mean_ms, max_ms, load_ms (loading the
program and creating this Method), iters, warmup, threads (this Method's),
file_bytes, arena_bytes, instructions, delegates, peak_rss_kib, times_ms
(every timed run), and with profile=True the per-operator profile.
The inputs are bound once; `warmup` untimed runs precede `iters` timed
ones of execute alone.)doc")
      .def(
          "cancel", [](PyMethod& m) { m.method->cancel(); },
          R"doc(
Stops the run in progress on this Method, from another thread: that run
(Method.run, or the current run of Method.bench, which then stops) raises
edgec.ExecutionError with code 'Cancelled' at the program's next
instruction or loop iteration (a delegate call is not interrupted inside),
and the Method stays usable: the next run runs in full. A cancel while no
run is in progress (before one, or between two runs of a bench) does
nothing: it never stops a later run. Safe from any thread.)doc")
      .def_property_readonly("threads", [](const PyMethod& m) { return m.threads; }, "Threads it runs on.")
      .def_property_readonly(
          "program", [](const PyMethod& m) { return m.program; }, "The Program it runs.")
      .def(
          "_bound_input_address",
          [](const PyMethod& m, const std::string& name) -> py::object {
            const auto& ins = m.program->get().inputs();
            for (size_t i = 0; i < ins.size(); ++i)
              if (ins[i].name == name) return py::int_(reinterpret_cast<uintptr_t>(m.method->input(i).data));
            throw PyError(exc.invalid_input, "no input '" + name + "'", "NotFound");
          },
          py::arg("name"),
          "Testing hook: the address of the memory the kernels read for input `name` at the last run "
          "(runtime::Method::input).")
      .def("__repr__", [](const PyMethod& m) {
        return "<edgec.Method of " + m.program->label() + ", " + std::to_string(m.threads) + " thread(s)>";
      });

  m.def("_compile", &compile, py::arg("model"), py::arg("backends"), py::arg("dims"), py::arg("max_dims"),
        py::arg("shapes"), py::arg("max_shapes"), py::arg("fix_inputs"),
        "edgec.compile's native part (model: a path as str, or bytes).");
  m.def(
      "load", [](const std::string& path) { return load_program(path); }, py::arg("path"),
      "Maps and validates a program file, as `edgec run` does. Raises edgec.InvalidProgram.");
  m.def("max_threads", &runtime::Method::max_threads,
        "The most threads a Method may use: this machine's cores.");
}
