// The onednn backend on wide graphs (nodes with tens of thousands of
// operands or results, values by the ten thousand live at once) and its
// buffer plan (runtime_plan.cpp): each case once took minutes or failed.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "compiler/backends.h"
#include "backends/onednn/compiler.h"
#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_state.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "lowering/backend.h"
#include "compiler/pass_registry.h"
#include "compiler/pipeline.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"
#include "support/compare.h"
#include "backends/delegate_harness.h"

namespace edgec {
namespace {

// ---- wide graphs ----------------------------------------------------------------------------
//
// Nodes with 10,000 to 100,000 operands or results, and values by the ten
// thousand live at once: each case runs in a second or two; before its fix
// it took minutes or failed. The hang guard's limit is far beyond the first
// and short of the second: timing is not what these check, the values are
// (computed by hand, never edgec's own). They are ISA-independent, so the
// AVX2 pass (backends.avx2.Onednn.*) does not repeat them.

// Runs `work` on a thread of its own and waits at most `limit` for it: past
// that the test fails and the binary ends (a stuck thread cannot be stopped).
void with_hang_guard(const std::string& what, std::chrono::seconds limit, const std::function<void()>& work) {
  auto done = std::async(std::launch::async, work);
  if (done.wait_for(limit) == std::future_status::timeout) {
    ADD_FAILURE() << what << " did not finish in " << limit.count() << " s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  done.get();
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::chrono::seconds kHangLimit{240};  // Sanitized builds run several times slower.
#else
constexpr std::chrono::seconds kHangLimit{60};
#endif

// Compiles `text` with `backends`, runs it `runs` times on `inputs` (f32,
// each of its shape) and returns the f32 outputs of the last run.
RunResult run_wide(const std::string& text, const std::vector<std::vector<float>>& inputs, const std::string& backends,
                   int runs = 1, int threads = 2) {
  RunResult r;
  auto p = parse_program(text, "wide.ir");
  compile_program(*p, {}, backends);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  EXPECT_TRUE(loaded.ok()) << error_detail();
  if (!loaded.ok()) return r;
  const runtime::Program& program = **loaded;
  for (const auto& d : program.delegates())
    if (d.backend_id == "onednn") r.delegated.insert(r.delegated.end(), d.operators.begin(), d.operators.end());
  for (const auto& in : program.instructions()) r.portable += !in.is_delegate_call();
  auto m = runtime::Method::create(program, threads);
  EXPECT_TRUE(m.ok()) << error_detail();
  if (!m.ok()) return r;
  for (int run = 0; run < runs; ++run) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& slot = program.slots()[static_cast<size_t>(program.inputs()[i].slot)];
      std::vector<int64_t> shape;
      for (const auto& d : slot.type.dims) shape.push_back(d.value);
      EXPECT_EQ((*m)->set_input(i, make_tensor(DType::Float32, shape, const_cast<float*>(inputs[i].data()), 0)),
                Error::Ok)
          << error_detail();
    }
    EXPECT_EQ((*m)->execute(), Error::Ok) << error_detail();
  }
  for (size_t i = 0; i < (*m)->num_outputs(); ++i) {
    const Tensor& t = (*m)->output(i);
    r.outputs.emplace_back(t.data_as<float>(), t.data_as<float>() + t.numel());
    r.shapes.emplace_back(t.shape().begin(), t.shape().end());
  }
  return r;
}

// The onednn delegate alone: `text` (an edge program of f32 values, with
// no constants) as the payload the compiler would make of it, given to the
// backend's init and run once on `inputs`. Skips partitioning and the
// compiler's constant preparation, which rebuilds the delegate, so that a
// case of 100,000 values costs one init. Returns the f32 outputs.
std::vector<std::vector<float>> run_in_delegate(const std::string& text, const std::vector<std::vector<float>>& inputs,
                                                int threads = 2) {
  auto p = parse_program(text, "delegate.ir");
  run_pass_verified(*p, "memory_plan");
  AlignedBytes payload(serialize_program_table(*p, "test"));
  const runtime::Backend* backend = runtime::find_backend("onednn");
  struct NoData final : runtime::NamedDataMap {
    const runtime::NamedDataEntry* find(std::string_view) const override { return nullptr; }
  } none;
  std::vector<std::vector<float>> outputs;
  Result<void*> handle = backend->init(payload.span(), none, threads);
  EXPECT_TRUE(handle.ok()) << error_detail();
  if (!handle.ok()) return outputs;
  std::vector<Tensor> in_tensors, out_tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<int64_t> shape = p->graph.placeholders()[i]->result()->type().static_shape();
    in_tensors.push_back(make_tensor(DType::Float32, shape, const_cast<float*>(inputs[i].data()), 0));
  }
  const auto results = p->graph.output_node()->inputs();
  outputs.resize(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const std::vector<int64_t> shape = results[i]->type().static_shape();
    outputs[i].resize(static_cast<size_t>(numel(shape)));
    out_tensors.push_back(make_tensor(DType::Float32, shape, outputs[i].data(), outputs[i].size() * sizeof(float)));
  }
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> outs;
  for (const Tensor& t : in_tensors) ins.push_back(&t);
  for (Tensor& t : out_tensors) outs.push_back(&t);
  EXPECT_EQ(backend->execute(*handle, ins, outs), Error::Ok) << error_detail();
  backend->destroy(*handle);
  return outputs;
}

// 0, 1, 2, ... n - 1.
std::vector<float> iota_values(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return v;
}

// Regression: a split into 100,000 outputs took seconds per execute in the
// delegate (each output's binding looked at every earlier output), and as
// many reorder primitives, each with a parallel region on two threads
// (25 s a run). Run 20 times, as a caller runs a handle: output k is x[k].
TEST(OnednnWide, SplitIntoManyOutputs) {
  constexpr int64_t kOutputs = 100000;
  std::string sig = "  input user_input %x target = \"x\"\n", results, types, sizes;
  for (int64_t k = 0; k < kOutputs; ++k) {
    const std::string name = "y" + std::to_string(k);
    sig += "  output user_output %" + name + " target = \"" + name + "\"\n";
    results += (k ? ", %" : "%") + name;
    types += k ? ", f32[1]" : "f32[1]";
    sizes += k ? ", 1" : "1";
  }
  const std::string text = "program dialect = \"edge\"\nsignature {\n" + sig + "}\ngraph {\n  %x = placeholder : f32[" +
                           std::to_string(kOutputs) + "]\n  " + results + " = edge.split.default(%x, sizes = [" +
                           sizes + "]) : " + types + "\n  output(" + results + ")\n}\n";
  const std::vector<float> x = iota_values(kOutputs);
  with_hang_guard("a split into 100,000 outputs", kHangLimit, [&] {
    const RunResult r = run_wide(text, {x}, "onednn", 20);
    EXPECT_EQ(r.delegated, std::vector<std::string>{"split"});
    ASSERT_EQ(r.outputs.size(), static_cast<size_t>(kOutputs));
    int64_t wrong = 0;
    for (int64_t k = 0; k < kOutputs; ++k)
      wrong += r.outputs[static_cast<size_t>(k)] != std::vector<float>{static_cast<float>(k)};
    EXPECT_EQ(wrong, 0);
  });
}


// A chain of `links` unary operations `op` from %x (f32[n]) to %y.
std::string unary_chain(const std::string& op, int64_t links, int64_t n) {
  const std::string type = "f32[" + std::to_string(n) + "]";
  std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                     "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : " + type + "\n";
  for (int64_t i = 0; i < links; ++i) {
    const std::string from = i == 0 ? "%x" : "%v" + std::to_string(i - 1);
    const std::string to = i + 1 == links ? "%y" : "%v" + std::to_string(i);
    text += "  " + to + " = edge." + op + ".default(" + from + ") : " + type + "\n";
  }
  return text + "  output(%y)\n}\n";
}

// Regression: a chain of unary operators was fused into one primitive
// whatever its length, and oneDNN 2.6 takes at most 32 post-ops: a chain of
// 33 or more compiled, then failed at load ("could not append an
// elementwise post-op"). 100 negations give x back; 101 give -x.
TEST(Onednn, LongUnaryChainsSplitIntoSteps) {
  const std::vector<float> x{3.f, -1.f, 0.5f, -7.f};
  for (const int64_t links : {100, 101}) {
    const RunResult r = run_wide(unary_chain("neg", links, 4), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    std::vector<float> want = x;
    if (links % 2) for (float& v : want) v = -v;
    EXPECT_EQ(r.outputs[0], want) << links << " links";
  }
}


// %y = concat of `operands` (each "%name"), of type `type` along `dim`.
std::string concat_line(const std::vector<std::string>& operands, int64_t dim, const std::string& type) {
  std::string line = "  %y = edge.concat.default([";
  for (size_t i = 0; i < operands.size(); ++i) line += (i ? ", " : "") + operands[i];
  return line + "], dim = " + std::to_string(dim) + ") : " + type + "\n";
}

// Regression: a concat of more than 3072 operands compiled, then failed at
// execute with oneDNN's "could not execute a primitive" (its source ids
// run into another argument's from the 3073rd on); it is built as several
// now. 10,000 copies of x: along dim 0 of an f32[2], y[2i + r] = x[r];
// along dim 1 of an f32[2, 1], y[r][i] = x[r].
TEST(OnednnWide, ConcatOfManyCopiesOfOneValue) {
  constexpr int64_t kCopies = 10000;
  const std::vector<float> x{2.5f, -4.f};
  for (const int64_t dim : {0, 1}) {
    const std::string xtype = dim == 0 ? "f32[2]" : "f32[2, 1]";
    const std::string ytype = dim == 0 ? "f32[" + std::to_string(2 * kCopies) + "]"
                                       : "f32[2, " + std::to_string(kCopies) + "]";
    const std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                             "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : " + xtype +
                             "\n" + concat_line(std::vector<std::string>(kCopies, "%x"), dim, ytype) +
                             "  output(%y)\n}\n";
    with_hang_guard("a concat of 10,000 copies", kHangLimit, [&] {
      const RunResult r = run_wide(text, {x}, "onednn");
      EXPECT_EQ(r.delegated, std::vector<std::string>{"concat"});
      ASSERT_EQ(r.outputs.size(), 1u);
      ASSERT_EQ(r.outputs[0].size(), static_cast<size_t>(2 * kCopies));
      int64_t wrong = 0;
      for (int64_t i = 0; i < kCopies; ++i)
        for (int64_t row = 0; row < 2; ++row)
          wrong += r.outputs[0][static_cast<size_t>(dim == 0 ? 2 * i + row : row * kCopies + i)] !=
                   x[static_cast<size_t>(row)];
      EXPECT_EQ(wrong, 0) << "dim " << dim;
    });
  }
}


// The first fit place_buffers computes, the slow way: each buffer against
// every buffer placed before it that is live at the same steps.
size_t first_fit_by_scanning(std::vector<runtime::onednn::Buffer>& buffers) {
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].first < buffers[b].first; });
  std::vector<size_t> placed;
  size_t total = 0;
  auto align = [](size_t v) { return (v + 63) / 64 * 64; };
  for (size_t i : order) {
    runtime::onednn::Buffer& b = buffers[i];
    if (b.last < 0) continue;
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t j : placed) {
      const runtime::onednn::Buffer& o = buffers[j];
      if (o.last >= b.first && o.first <= b.last) busy.emplace_back(o.offset, o.offset + align(o.size));
    }
    std::sort(busy.begin(), busy.end());
    size_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (at + align(b.size) <= lo) break;
      at = std::max(at, hi);
    }
    b.offset = at;
    total = std::max(total, at + align(b.size));
    placed.push_back(i);
  }
  return total;
}

// place_buffers gives the offsets of a first fit over every live buffer on
// random lifetimes and sizes (zero sizes, unused buffers, equal starts),
// and buffers live at the same step never share a byte.
TEST(OnednnPlan, PlaceBuffersIsFirstFit) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<runtime::onednn::Buffer> buffers(1 + rng() % 300);
    const int steps = 1 + static_cast<int>(rng() % 100);
    for (auto& b : buffers) {
      b.size = rng() % 5 == 0 ? 0 : rng() % 1000;
      if (rng() % 10 == 0) continue;  // never used
      b.first = static_cast<int>(rng() % static_cast<unsigned>(steps));
      b.last = b.first + static_cast<int>(rng() % 20);
    }
    std::vector<runtime::onednn::Buffer> want = buffers;
    const size_t total = runtime::place_buffers(buffers);
    EXPECT_EQ(total, first_fit_by_scanning(want)) << "round " << round;
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(buffers[i].offset, want[i].offset) << "round " << round << ", buffer " << i;
      for (size_t j = 0; j < i; ++j) {
        const auto &a = buffers[i], &b = buffers[j];
        if (a.last < 0 || b.last < 0 || a.size == 0 || b.size == 0 || a.last < b.first || b.last < a.first) continue;
        EXPECT_TRUE(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset)
            << "round " << round << ": buffers " << i << " and " << j << " overlap";
      }
    }
  }
}

// Regression: every slot of the delegate held two oneDNN memory
// descriptors (696 bytes each) and every step one, so a graph of 10^6
// values took 1.5 GB of init state before it had a step. The descriptors
// few slots have live out of line now.
TEST(OnednnPlan, SlotAndStepStateStaysSmall) {
  EXPECT_LE(sizeof(runtime::onednn::SlotState), 256u);
  EXPECT_LE(sizeof(runtime::onednn::Step), 256u);
}

// "%x = placeholder : f32[n]" split into %p0 ... %p{n-1} (f32[1] each),
// then `body`, which defines %y, the program's one output.
std::string split_then(int64_t n, const std::string& body) {
  std::string pieces, types, sizes;
  for (int64_t k = 0; k < n; ++k) {
    pieces += (k ? ", %p" : "%p") + std::to_string(k);
    types += k ? ", f32[1]" : "f32[1]";
    sizes += k ? ", 1" : "1";
  }
  return "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
         "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : f32[" + std::to_string(n) +
         "]\n  " + pieces + " = edge.split.default(%x, sizes = [" + sizes + "]) : " + types + "\n" + body +
         "  output(%y)\n}\n";
}

// Regression: the delegate placed each of its buffers by scanning every
// buffer live at the time, so its init (and the compiler's constant
// preparation, which builds it too) was quadratic in the values live at
// once: a Sum of 10,000 values took 6 s to load. Here 30,000 values are
// live together: the pieces of a split, summed one by one (small integers,
// so the sum is exact), and concatenated in reverse order (which also
// checks that no two of them share memory).
TEST(OnednnWide, ManyValuesLiveAtOnce) {
  constexpr int64_t kValues = 30000;
  std::vector<float> x(kValues);
  double sum = 0;
  for (int64_t i = 0; i < kValues; ++i) {
    x[static_cast<size_t>(i)] = static_cast<float>(i % 7 - 3);
    sum += x[static_cast<size_t>(i)];
  }
  std::string adds;
  for (int64_t k = 1; k < kValues; ++k) {
    const std::string acc = k == 1 ? "%p0" : "%s" + std::to_string(k - 1);
    adds += "  " + (k + 1 == kValues ? std::string("%y") : "%s" + std::to_string(k)) + " = edge.add.Tensor(" + acc +
            ", %p" + std::to_string(k) + ") : f32[1]\n";
  }
  std::vector<std::string> reversed;
  for (int64_t k = kValues; k-- > 0;) reversed.push_back("%p" + std::to_string(k));
  const std::string type = "f32[" + std::to_string(kValues) + "]";
  with_hang_guard("a sum of 30,000 values", kHangLimit, [&] {
    const RunResult r = run_wide(split_then(kValues, adds), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0], std::vector<float>{static_cast<float>(sum)});
  });
  with_hang_guard("a concat of 30,000 values", kHangLimit, [&] {
    const RunResult r = run_wide(split_then(kValues, concat_line(reversed, 0, type)), {x}, "onednn");
    EXPECT_EQ(r.portable, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(std::equal(x.rbegin(), x.rend(), r.outputs[0].begin(), r.outputs[0].end()));
  });
}


// Regression: after each instruction the delegate's init looked at every
// delegate output (to reorder one its producer left blocked), quadratic in
// a graph whose many instructions each give an output. 100,000 negations
// of x, each an output: output k is -x.
TEST(OnednnWide, ManyInstructionsEachAnOutput) {
  constexpr int64_t kOutputs = 100000;
  std::string sig = "  input user_input %x target = \"x\"\n", body, results;
  for (int64_t k = 0; k < kOutputs; ++k) {
    const std::string name = "v" + std::to_string(k);
    sig += "  output user_output %" + name + " target = \"" + name + "\"\n";
    body += "  %" + name + " = edge.neg.default(%x) : f32[2]\n";
    results += (k ? ", %" : "%") + name;
  }
  const std::string text = "program dialect = \"edge\"\nsignature {\n" + sig +
                           "}\ngraph {\n  %x = placeholder : f32[2]\n" + body + "  output(" + results + ")\n}\n";
  with_hang_guard("100,000 instructions each an output", kHangLimit, [&] {
    const auto outputs = run_in_delegate(text, {{1.5f, -2.f}});
    ASSERT_EQ(outputs.size(), static_cast<size_t>(kOutputs));
    int64_t wrong = 0;
    for (const auto& v : outputs) wrong += v != std::vector<float>{-1.5f, 2.f};
    EXPECT_EQ(wrong, 0);
  });
}


// Bytes malloc has handed out and not had back, blocks it mapped included.
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Regression: every step reading a value made a memory object of its own
// (a kilobyte each), so a concat of 10,000 copies of x took 10 MB of init
// state for one 4-byte input; consecutive reads of the same view share
// one now. The heap init takes stays under 400 bytes an operand.
TEST(OnednnWide, AnInputReadByManyStepsSharesItsMemoryObject) {
  constexpr int64_t kCopies = 10000;
  const std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                           "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : f32[1]\n" +
                           concat_line(std::vector<std::string>(kCopies, "%x"), 0, "f32[" + std::to_string(kCopies) + "]") +
                           "  output(%y)\n}\n";
  auto p = parse_program(text, "copies.ir");
  run_pass_verified(*p, "memory_plan");
  AlignedBytes payload(serialize_program_table(*p, "test"));
  struct NoData final : runtime::NamedDataMap {
    const runtime::NamedDataEntry* find(std::string_view) const override { return nullptr; }
  } none;
  const runtime::Backend* backend = runtime::find_backend("onednn");
  // Once first: oneDNN's own first-use state (its primitive cache, JIT
  // code) is not the delegate's.
  Result<void*> warm = backend->init(payload.span(), none, 1);
  ASSERT_TRUE(warm.ok()) << error_detail();
  backend->destroy(*warm);
  const size_t before = heap_in_use();
  Result<void*> handle = backend->init(payload.span(), none, 1);
  ASSERT_TRUE(handle.ok()) << error_detail();
  const size_t grown = heap_in_use() - before;
  backend->destroy(*handle);
  EXPECT_LT(grown, static_cast<size_t>(kCopies) * 400) << "init kept " << grown << " bytes";
}

}  // namespace
}  // namespace edgec
