// Runs every kernel case generated from tests/kernels/cases/<family>.py (by
// gen_cases.py, into EDGEC_KERNEL_CASES_DIR) through find_kernel(op): one test
// per family, every case checked against numpy's expected outputs or
// expected error message.
//
// Beyond the values, each call is checked for what a kernel must never do:
// write outside its output's capacity (guard bytes on both sides), write into
// its inputs, leave output elements unwritten (each case runs twice, with the
// output pre-filled by two different patterns), or depend on the thread count
// (the second run gets 3 threads instead of 1).
//
// Environment: EDGEC_KERNEL_CASES_DIR overrides the case folder (to try a
// scratch case file); EDGEC_KERNEL_CASE=substring runs only matching cases.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/npz.h"
#include "base/diagnostic.h"
#include "ir/operator.h"
#include "kernels/registry.h"
#include "ops/op_info.h"
#include "passes/decompositions.h"
#include "support/compare.h"

#ifndef EDGEC_KERNEL_CASES_DIR
#error "EDGEC_KERNEL_CASES_DIR must name the folder gen_cases.py writes"
#endif

namespace edgec {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kGuardBytes = 64;
constexpr int kMaxReportedMismatches = 5;

std::string cases_dir() {
  const char* env = std::getenv("EDGEC_KERNEL_CASES_DIR");
  return env != nullptr && *env != '\0' ? env : EDGEC_KERNEL_CASES_DIR;
}

// Families are the stems of <family>.json (generated) and <family>.error
// (a case module that failed to load, which must fail its test).
std::vector<std::string> families() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cases_dir(), ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".json" || p.extension() == ".error") names.insert(p.stem().string());
  }
  return {names.begin(), names.end()};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shape_text(std::span<const int64_t> shape) { return shape_string(shape); }

// ---------------------------------------------------------------------------
// attributes

double json_float(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    throw std::runtime_error("bad float '" + s + "'");
  }
  return v.get<double>();
}

Attrs decode_attrs(const json& attrs) {
  Attrs out;
  for (const auto& [name, entry] : attrs.items()) {
    const std::string kind = entry.at("kind").get<std::string>();
    const json& v = entry.at("value");
    if (kind == "int") {
      out.set(name, v.get<int64_t>());
    } else if (kind == "float") {
      out.set(name, json_float(v));
    } else if (kind == "bool") {
      out.set(name, v.get<bool>());
    } else if (kind == "str") {
      out.set(name, v.get<std::string>());
    } else if (kind == "ints") {
      out.set(name, v.get<std::vector<int64_t>>());
    } else if (kind == "floats") {
      std::vector<double> fs;
      for (const json& x : v) fs.push_back(json_float(x));
      out.set(name, std::move(fs));
    } else if (kind == "dtype") {
      const auto d = parse_dtype(v.get<std::string>());
      if (!d) throw std::runtime_error("attribute " + name + ": unknown dtype " + v.dump());
      out.set(name, *d);
    } else {
      throw std::runtime_error("attribute " + name + ": unknown kind " + kind);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// buffers

// An output buffer with guard bytes on both sides; `data()` is 64-byte
// aligned within the allocation like an arena slot.
class GuardedBuffer {
 public:
  static constexpr std::byte kGuard{0xCD};

  GuardedBuffer(size_t capacity, std::byte fill) : capacity_(capacity), bytes_(capacity + 2 * kGuardBytes) {
    std::fill(bytes_.begin(), bytes_.begin() + kGuardBytes, kGuard);
    std::fill(bytes_.begin() + kGuardBytes, bytes_.end() - kGuardBytes, fill);
    std::fill(bytes_.end() - kGuardBytes, bytes_.end(), kGuard);
  }
  std::byte* data() { return bytes_.data() + kGuardBytes; }
  size_t capacity() const { return capacity_; }
  bool guards_intact() const {
    auto ok = [](auto first, auto last) { return std::all_of(first, last, [](std::byte b) { return b == kGuard; }); };
    return ok(bytes_.begin(), bytes_.begin() + kGuardBytes) && ok(bytes_.end() - kGuardBytes, bytes_.end());
  }

 private:
  size_t capacity_;
  std::vector<std::byte> bytes_;
};

// ---------------------------------------------------------------------------
// comparison (tests/support/compare.h: integers and bools exact, NaN only
// where numpy has NaN, floats within |got - want| <= atol + rtol * |want|)

compare::ArrayView view_of(const Tensor& t) {
  return {t.dtype, std::vector<int64_t>(t.shape().begin(), t.shape().end()), t.data, t.nbytes()};
}

compare::ArrayView view_of(const io::NpyArray& a) { return {a.dtype, a.shape, a.data.data(), a.data.size()}; }

// ---------------------------------------------------------------------------
// one case

struct CaseData {
  std::string name;
  std::string op;
  Attrs attrs;
  std::vector<const io::NpyArray*> inputs;
  std::vector<std::vector<int64_t>> perms;  // empty: as stored
  std::vector<const io::NpyArray*> outputs;
  struct OutSpec {
    DType dtype;
    std::vector<int64_t> shape;
    size_t capacity;
  };
  std::vector<OutSpec> out_specs;
  std::optional<std::string> error;
  double atol = 0, rtol = 0;
};

const io::NpyArray& find_array(const std::map<std::string, io::NpyArray>& arrays, const std::string& name) {
  auto it = arrays.find(name);
  if (it == arrays.end()) throw std::runtime_error("array '" + name + "' is missing from the .npz");
  return it->second;
}

CaseData decode_case(const json& j, const std::map<std::string, io::NpyArray>& arrays) {
  CaseData c;
  c.name = j.at("name").get<std::string>();
  c.op = j.at("op").get<std::string>();
  c.attrs = decode_attrs(j.at("attrs"));
  for (const json& in : j.at("inputs")) {
    c.inputs.push_back(&find_array(arrays, in.at("array").get<std::string>()));
    c.perms.push_back(in.at("perm").is_null() ? std::vector<int64_t>{} : in.at("perm").get<std::vector<int64_t>>());
    const std::vector<int64_t>& perm = c.perms.back();
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t d = 0; d < sorted.size(); ++d) {
      if (sorted[d] != static_cast<int64_t>(d) || sorted.size() != c.inputs.back()->shape.size()) {
        throw std::runtime_error("input " + std::to_string(c.inputs.size() - 1) + ": bad perm " +
                                 in.at("perm").dump());
      }
    }
  }
  for (const json& out : j.at("outputs")) c.outputs.push_back(&find_array(arrays, out.get<std::string>()));
  for (const json& spec : j.at("out_specs")) {
    const auto d = parse_dtype(spec.at("dtype").get<std::string>());
    if (!d) throw std::runtime_error("bad out_specs dtype " + spec.at("dtype").dump());
    c.out_specs.push_back({*d, spec.at("shape").get<std::vector<int64_t>>(), spec.at("capacity").get<size_t>()});
  }
  if (!j.at("error").is_null()) c.error = j.at("error").get<std::string>();
  c.atol = j.at("atol").get<double>();
  c.rtol = j.at("rtol").get<double>();
  return c;
}

// The kernel's view of input `i`: the stored array, permuted if asked.
Tensor input_view(const CaseData& c, size_t i, std::vector<std::byte>& storage) {
  const io::NpyArray& a = *c.inputs[i];
  storage = a.data;  // the kernel gets a copy, so writes into inputs show
  Tensor t = make_tensor(a.dtype, a.shape, storage.data(), 0);
  const std::vector<int64_t>& perm = c.perms[i];
  if (!perm.empty()) {
    const Tensor orig = t;
    for (int d = 0; d < t.rank; ++d) {
      t.sizes[d] = orig.sizes[perm[d]];
      t.strides[d] = orig.strides[perm[d]];
    }
  }
  return t;
}

// Runs the case once; returns the problems found (empty when it passed).
std::string run_once(const CaseData& c, KernelFn fn, int threads, std::byte fill) {
  std::ostringstream report;
  std::vector<std::vector<std::byte>> input_storage(c.inputs.size());
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) inputs.push_back(input_view(c, i, input_storage[i]));

  std::vector<GuardedBuffer> buffers;
  buffers.reserve(c.error ? c.out_specs.size() : c.outputs.size());  // data() must stay put
  std::vector<Tensor> outputs;
  if (c.error) {
    for (const auto& spec : c.out_specs) {
      buffers.emplace_back(spec.capacity, fill);
      outputs.push_back(make_tensor(spec.dtype, spec.shape, buffers.back().data(), buffers.back().capacity()));
    }
  } else {
    // Rank 0 until the kernel sizes it: forgetting resize() shows as a shape error.
    for (const io::NpyArray* want : c.outputs) {
      buffers.emplace_back(want->data.size(), fill);
      outputs.push_back(make_tensor(want->dtype, {}, buffers.back().data(), buffers.back().capacity()));
    }
  }

  KernelContext ctx;
  ctx.num_threads = threads;
  set_error_detail("");
  const Error err = fn(ctx, inputs, c.attrs, outputs);
  const std::string detail = error_detail();

  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].guards_intact()) {
      report << "\n    output " << i << ": wrote outside its " << buffers[i].capacity() << "-byte buffer";
    }
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (input_storage[i] != c.inputs[i]->data) report << "\n    input " << i << ": the kernel modified it";
  }

  if (c.error) {
    if (err == Error::Ok) {
      report << "\n    expected an error containing \"" << *c.error << "\", the kernel succeeded";
    } else if (detail.find(*c.error) == std::string::npos) {
      report << "\n    expected an error containing \"" << *c.error << "\", got " << error_name(err) << ": \""
             << detail << "\"";
    }
    return report.str();
  }
  if (err != Error::Ok) {
    report << "\n    kernel failed: " << error_name(err) << ": " << detail;
    return report.str();
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& got = outputs[i];
    const io::NpyArray& want = *c.outputs[i];
    const std::string label = "output " + std::to_string(i);
    if (got.data != buffers[i].data() || !got.is_contiguous()) {
      report << "\n    " << label << ": the kernel changed the output's data pointer or strides";
      continue;
    }
    // Dtype and shape first: the values are read only when both match.
    const std::string problem =
        compare::compare_arrays(label, view_of(got), view_of(want), compare::Tolerance::sum(c.atol, c.rtol),
                                {kMaxReportedMismatches, "      "});
    if (!problem.empty()) report << "\n    " << problem;
  }
  return report.str();
}

// The operator table's shape function on the case's input types must give
// the kernel's output dtype and shape exactly (for data-dependent dims: a
// bound at least the actual size). Returns the problems found.
std::string check_shape_function(const CaseData& c) {
  const OpInfo* op = find_op_by_name(c.op);
  if (op == nullptr) return "\n    no operator-table row for '" + c.op + "'";
  std::vector<TensorType> types;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    std::vector<int64_t> shape = c.inputs[i]->shape;
    if (!c.perms[i].empty())
      for (size_t d = 0; d < shape.size(); ++d) shape[d] = c.inputs[i]->shape[static_cast<size_t>(c.perms[i][d])];
    types.push_back(TensorType::of(c.inputs[i]->dtype, shape));
  }
  // Group the flat inputs by the row's operands: a list operand takes what
  // the single ones before and after it leave.
  std::vector<OperandGroup> groups;
  size_t singles = 0, consumed = 0;
  for (const auto& o : op->operands) singles += o.kind == OperandKind::List ? 0 : 1;
  for (const auto& o : op->operands) {
    if (o.kind == OperandKind::List) {
      const size_t n = types.size() > singles ? types.size() - singles : 0;
      groups.push_back({true, static_cast<int>(n)});
      consumed += n;
    } else if (consumed < types.size()) {  // absent trailing optionals take nothing
      groups.push_back({});
      ++consumed;
    }
  }
  std::vector<TensorType> inferred;
  try {
    inferred = op->infer(types, groups, c.attrs);
  } catch (const CompileError& e) {
    if (c.error) return {};  // both reject: fine
    return "\n    the shape function rejects a case the kernel accepts: " + std::string(e.what());
  }
  if (c.error) return {};  // conditions only data can reveal (an index value) are the kernel's
  std::ostringstream report;
  if (inferred.size() != c.outputs.size()) {
    report << "\n    the shape function gives " << inferred.size() << " result(s), the kernel " << c.outputs.size();
    return report.str();
  }
  for (size_t i = 0; i < inferred.size(); ++i) {
    const io::NpyArray& want = *c.outputs[i];
    const TensorType& t = inferred[i];
    bool ok = t.dtype == want.dtype && t.rank() == static_cast<int>(want.shape.size());
    for (int d = 0; ok && d < t.rank(); ++d) {
      const Dim& dim = t.dims[static_cast<size_t>(d)];
      ok = dim.is_static() ? dim.value == want.shape[static_cast<size_t>(d)]
                           : (dim.upper_bound() && *dim.upper_bound() >= want.shape[static_cast<size_t>(d)]);
    }
    if (!ok)
      report << "\n    output " << i << ": the shape function infers " << t.str() << ", the kernel gives "
             << dtype_name(want.dtype) << shape_text(want.shape);
  }
  return report.str();
}

// ---------------------------------------------------------------------------
// the tests

TEST(KernelCases, CaseFilesExist) {
  // A missing or empty case folder must not look like a pass.
  bool any = false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cases_dir(), ec)) {
    if (entry.path().extension() == ".json") any = true;
  }
  EXPECT_TRUE(any) << "no <family>.json in " << cases_dir()
                   << " (generated by tests/kernels/gen_cases.py; build the kernel_cases target)";
}

// Walks the operator table: every core operator has a portable kernel and at
// least one case in tests/kernels/cases, and every composite a
// decomposition (to_edge rewrites it into core operators, which are
// covered so). A new operator without them fails here.
TEST(KernelCases, EveryCoreOperatorHasAKernelAndACase) {
  std::set<std::string> with_cases;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cases_dir(), ec)) {
    if (entry.path().extension() != ".json") continue;
    for (const json& c : json::parse(read_text(entry.path()))) with_cases.insert(c.at("op").get<std::string>());
  }
  ASSERT_FALSE(with_cases.empty()) << "no cases in " << cases_dir();
  for (const OpInfo* op : all_ops()) {
    const std::string name(op->name);
    if (!op->core) {
      EXPECT_NE(find_decomposition(name), nullptr) << "composite " << name << " has no decomposition";
      continue;
    }
    EXPECT_NE(find_kernel(name), nullptr) << "core operator " << name << " has no portable kernel";
    EXPECT_TRUE(with_cases.count(name)) << "core operator " << name
                                        << " has no case in tests/kernels/cases (add one to its family's module)";
  }
}

class KernelCaseFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelCaseFamily, MatchesNumpy) {
  const std::string family = GetParam();
  const fs::path dir = cases_dir();
  if (fs::exists(dir / (family + ".error"))) {
    FAIL() << "the " << family << " case module could not be turned into cases:\n"
           << read_text(dir / (family + ".error"));
  }

  json cases;
  std::map<std::string, io::NpyArray> arrays;
  try {
    cases = json::parse(read_text(dir / (family + ".json")));
    for (io::NpyArray& a : io::read_npz((dir / (family + ".npz")).string())) {
      std::string name = a.name;
      arrays.emplace(std::move(name), std::move(a));
    }
  } catch (const std::exception& e) {
    FAIL() << "cannot load the " << family << " cases from " << dir << ": " << e.what();
  }

  const char* only = std::getenv("EDGEC_KERNEL_CASE");
  int ran = 0, failed = 0;
  for (size_t index = 0; index < cases.size(); ++index) {
    CaseData c;
    try {
      c = decode_case(cases[index], arrays);
    } catch (const std::exception& e) {
      ADD_FAILURE() << family << " case #" << index << ": malformed entry: " << e.what();
      ++failed;
      continue;
    }
    if (only != nullptr && c.name.find(only) == std::string::npos) continue;
    ++ran;
    const std::string where = family + " case #" + std::to_string(index) + " '" + c.name + "' (op " + c.op + ")";
    const KernelFn fn = find_kernel(c.op);
    if (fn == nullptr) {
      ADD_FAILURE() << where << ": no kernel is registered for op '" << c.op << "'";
      ++failed;
      continue;
    }
    // Two runs: different output pre-fills catch unwritten elements, and
    // the thread count must not change the result.
    std::string problems = run_once(c, fn, 1, std::byte{0xFF});
    if (problems.empty()) {
      const std::string second = run_once(c, fn, 3, std::byte{0x5A});
      if (!second.empty()) problems = "\n    (second run: 3 threads, output pre-filled with 0x5A)" + second;
    }
    problems += check_shape_function(c);
    if (!problems.empty()) {
      ADD_FAILURE() << where << ":" << problems;
      ++failed;
    }
  }
  if (only != nullptr) {
    EXPECT_GT(ran, 0) << "EDGEC_KERNEL_CASE=" << only << " matches no " << family << " case";
  }
  std::cout << "[ " << family << " ] " << ran << " cases, " << failed << " failed\n";
}

std::string family_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Family, KernelCaseFamily, ::testing::ValuesIn(families()), family_test_name);
// An empty folder is reported by CaseFilesExist, with a better message.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelCaseFamily);

}  // namespace
}  // namespace edgec
