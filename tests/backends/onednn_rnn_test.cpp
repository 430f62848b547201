// The recurrent layers on the onednn delegate (runtime_rnn.cpp): lstm, gru
// (both linear_before_reset values) and rnn compiled with --backends onednn
// against the portable kernels (src/kernels/recurrent.cpp) on random
// inputs and constant weights, within 1e-5 relative: each direction, with
// and without bias and initial states, batch-first (the importer's
// permutes around the time-major call), several batch sizes; then the
// configurations the delegate refuses, which stay on the portable kernels
// with the reason. The suite is Onednn so that the AVX2 pass
// (backends.avx2.Onednn.*) runs it too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/onednn/compiler.h"
#include "backends/delegate_harness.h"
#include "lowering/backend.h"

namespace edgec {
namespace {

struct RnnCase {
  std::string op = "lstm";  ///< lstm, gru or rnn
  std::string direction = "forward";
  int64_t seq = 5, batch = 3, input = 4, hidden = 6;
  bool bias = true;
  bool h0 = false, c0 = false;  ///< Initial states (user inputs).
  bool peephole = false;        ///< lstm's P.
  bool batch_first = false;     ///< X [batch, seq, input], Y [batch, seq, dirs, hidden] (ONNX's layout 1).
  std::string attrs;            ///< More attributes, ", name = value" each.
  bool lens = false;            ///< sequence_lens (a constant, all of length seq).
};

int64_t gates(const std::string& op) { return op == "lstm" ? 4 : op == "gru" ? 3 : 1; }

std::string dims(std::initializer_list<int64_t> d) {
  std::string s = "f32[";
  bool first = true;
  for (int64_t v : d) {
    s += (first ? "" : ", ") + std::to_string(v);
    first = false;
  }
  return s + "]";
}

// The call and the values it reads; outputs y, h (and c for lstm).
Ir rnn_program(const RnnCase& k, std::vector<std::string>& outputs) {
  const bool lstm = k.op == "lstm";
  const int64_t D = k.direction == "bidirectional" ? 2 : 1, G = gates(k.op), H = k.hidden;
  const int64_t T = k.seq, N = k.batch;
  Ir ir(static_cast<uint32_t>(T * 131 + N * 17 + H));
  if (k.batch_first) ir.input("xb", {N, T, k.input});
  else ir.input("x", {T, N, k.input});
  ir.constant("w", {D, G * H, k.input}).constant("r", {D, G * H, H});
  // Operands after R in ONNX's order; one left out before one given is an
  // empty [0] tensor (the importer's convention).
  std::vector<std::string> optional;
  auto none = [&] {
    ir.constant("none" + std::to_string(optional.size()), {0});
    return "%none" + std::to_string(optional.size());
  };
  optional.push_back(k.bias ? (ir.constant("b", {D, 2 * G * H}), "%b") : none());
  if (k.lens) {
    std::vector<int64_t> v(static_cast<size_t>(N), T);
    ir.index_constant("lens", {N}, v);
    optional.push_back("%lens");
  } else {
    optional.push_back(none());
  }
  optional.push_back(k.h0 ? (ir.input("h0", {D, N, H}), "%h0") : none());
  if (lstm) {
    optional.push_back(k.c0 ? (ir.input("c0", {D, N, H}), "%c0") : none());
    optional.push_back(k.peephole ? (ir.constant("p", {D, 3 * H}), "%p") : none());
  }
  // Trailing absent operands are not passed.
  while (!optional.empty() && optional.back().rfind("%none", 0) == 0) optional.pop_back();
  if (k.batch_first) ir.op("%x = edge.permute.default(%xb, dims = [1, 0, 2]) : " + dims({T, N, k.input}));
  std::string operands = "%x, %w, %r";
  for (const auto& o : optional) operands += ", " + o;
  const std::string yt = dims({T, D, N, H}), st = dims({D, N, H}), wt = dims({N, 2 * G * H + H});
  const std::string y = k.batch_first ? "%yt" : "%y";
  ir.op(y + ", %h" + (lstm ? ", %c" : "") + ", %ws = edge." + k.op + ".default(" + operands +
        ", hidden_size = " + std::to_string(H) + ", direction = \"" + k.direction + "\"" + k.attrs + ") : " + yt +
        ", " + st + (lstm ? ", " + st : "") + ", " + wt);
  if (k.batch_first) ir.op("%y = edge.permute.default(%yt, dims = [2, 0, 1, 3]) : " + dims({N, T, D, H}));
  outputs = {"y", "h"};
  if (lstm) outputs.push_back("c");
  return ir;
}

std::string describe(const RnnCase& k) {
  return k.op + " " + k.direction + " seq " + std::to_string(k.seq) + " batch " + std::to_string(k.batch) +
         (k.bias ? " bias" : "") + (k.h0 ? " h0" : "") + (k.c0 ? " c0" : "") + (k.peephole ? " peephole" : "") +
         (k.batch_first ? " batch-first" : "") + k.attrs;
}

// Delegated, and equal to the portable kernel.
void expect_delegated(const RnnCase& k) {
  SCOPED_TRACE(describe(k));
  std::vector<std::string> outputs;
  const Ir ir = rnn_program(k, outputs);
  expect_matches(ir, outputs, {k.op});
}

// Left on the portable kernel (and still right there).
void expect_portable(const RnnCase& k) {
  SCOPED_TRACE(describe(k));
  std::vector<std::string> outputs;
  const Ir ir = rnn_program(k, outputs);
  const RunResult want = compile_and_run(ir, outputs, "none");
  const RunResult got = compile_and_run(ir, outputs, "onednn");
  EXPECT_EQ(std::find(got.delegated.begin(), got.delegated.end(), k.op), got.delegated.end())
      << k.op << " was delegated\n" << ir.text(outputs);
  expect_outputs_match(got, want, compare::Tolerance::either(1e-6, 1e-6), outputs);
}

// The reason the onednn partitioner gives for the recurrent call.
std::optional<std::string> rnn_reason(const RnnCase& k) {
  std::vector<std::string> outputs;
  const Ir ir = rnn_program(k, outputs);
  auto p = parse_program(ir.text(outputs), "test.ir");
  auto part = onednn_backend_compiler().make_partitioner("");
  for (Node* n : p->graph.calls())
    if (n->op().rfind("edge." + k.op + ".", 0) == 0) return part->refuse(*p, *n);
  return "no " + k.op + " call";
}

TEST(Onednn, RnnLstmDirectionsStatesAndBatches) {
  for (const char* direction : {"forward", "reverse", "bidirectional"})
    for (int64_t batch : {1, 3})
      for (int states = 0; states < 3; ++states) {
        RnnCase k;
        k.direction = direction;
        k.batch = batch;
        k.h0 = states >= 1;
        k.c0 = states == 2;
        expect_delegated(k);
      }
}

TEST(Onednn, RnnLstmBatchFirstNoBiasAndPeepholes) {
  for (const char* direction : {"forward", "bidirectional"}) {
    RnnCase k;
    k.direction = direction;
    k.batch_first = true;
    k.h0 = k.c0 = true;
    expect_delegated(k);
    k = RnnCase{};
    k.direction = direction;
    k.bias = false;
    k.c0 = true;  // initial_c without initial_h
    expect_delegated(k);
    k = RnnCase{};
    k.direction = direction;
    k.peephole = true;
    k.h0 = k.c0 = true;
    expect_delegated(k);
  }
  // Longer, wider: oneDNN's blocked weights layouts and more than one thread's work.
  RnnCase k;
  k.direction = "bidirectional";
  k.seq = 20;
  k.batch = 8;
  k.input = 40;
  k.hidden = 64;
  k.h0 = k.c0 = true;
  expect_delegated(k);
}

TEST(Onednn, RnnGruBothResets) {
  for (const char* lbr : {"false", "true"})
    for (const char* direction : {"forward", "reverse", "bidirectional"})
      for (int variant = 0; variant < 3; ++variant) {
        RnnCase k;
        k.op = "gru";
        k.direction = direction;
        k.attrs = std::string(", linear_before_reset = ") + lbr;
        k.h0 = variant >= 1;
        k.batch = variant == 2 ? 1 : 3;
        k.batch_first = variant == 2;
        k.bias = variant != 1;
        expect_delegated(k);
      }
}

TEST(Onednn, RnnVanilla) {
  for (const char* direction : {"forward", "reverse", "bidirectional"}) {
    RnnCase k;
    k.op = "rnn";
    k.direction = direction;
    k.h0 = true;
    expect_delegated(k);
    k.batch_first = true;
    k.h0 = false;
    k.batch = 2;
    expect_delegated(k);
  }
  // Relu (code 2) and sigmoid (code 0), one per direction each.
  RnnCase k;
  k.op = "rnn";
  k.attrs = ", activations = [2]";
  expect_delegated(k);
  k.direction = "bidirectional";
  k.attrs = ", activations = [0, 0]";
  expect_delegated(k);
}

TEST(Onednn, RnnRefusalsStayOnThePortableKernels) {
  RnnCase k;
  k.attrs = ", clip = 0.5";
  EXPECT_EQ(rnn_reason(k), "attribute clip for lstm (oneDNN's RNN primitives do not clip)");
  expect_portable(k);
  k.attrs = ", input_forget = true";
  EXPECT_EQ(rnn_reason(k), "attribute input_forget for lstm");
  expect_portable(k);
  // Codes: sigmoid 0, tanh 1, relu 2 (src/kernels/recurrent.cpp).
  k.attrs = ", activations = [0, 1, 2]";
  EXPECT_EQ(rnn_reason(k), "activations other than the defaults for lstm (oneDNN's gates are fixed)");
  expect_portable(k);
  k.attrs = "";
  k.lens = true;
  k.h0 = true;
  EXPECT_EQ(rnn_reason(k),
            "lstm with sequence_lens (oneDNN's RNN primitives run every batch entry over the whole sequence)");
  expect_portable(k);
  RnnCase g;
  g.op = "gru";
  g.attrs = ", activations = [0, 2]";
  EXPECT_EQ(rnn_reason(g), "activations other than the defaults for gru (oneDNN's gates are fixed)");
  expect_portable(g);
  RnnCase r;
  r.op = "rnn";
  r.direction = "bidirectional";
  r.attrs = ", activations = [1, 2]";
  EXPECT_EQ(rnn_reason(r), "rnn activation other than Tanh, Relu or Sigmoid, or different per direction");
  expect_portable(r);
  r.direction = "forward";
  r.attrs = ", activations = [9]";  // softsign
  EXPECT_EQ(rnn_reason(r), "rnn activation other than Tanh, Relu or Sigmoid, or different per direction");
  // The delegate's configurations: none.
  EXPECT_EQ(rnn_reason(RnnCase{}), std::nullopt);
}

// Weights that are user inputs (not constants) stay on the portable kernel:
// init lays them out once.
TEST(Onednn, RnnWeightsThatAreNotConstants) {
  const std::string text =
      "program dialect = \"edge\"\nsignature {\n"
      "  input user_input %x target = \"x\"\n  input user_input %w target = \"w\"\n"
      "  input user_input %r target = \"r\"\n  output user_output %y target = \"y\"\n}\ngraph {\n"
      "  %x = placeholder : f32[2, 1, 3]\n  %w = placeholder : f32[1, 8, 3]\n  %r = placeholder : f32[1, 8, 2]\n"
      "  %y, %h, %c, %ws = edge.lstm.default(%x, %w, %r, hidden_size = 2) : f32[2, 1, 1, 2], f32[1, 1, 2], "
      "f32[1, 1, 2], f32[1, 18]\n  output(%y)\n}\n";
  auto p = parse_program(text, "test.ir");
  auto part = onednn_backend_compiler().make_partitioner("");
  for (Node* n : p->graph.calls())
    EXPECT_EQ(part->refuse(*p, *n), "lstm w (input 1) is not a constant (init lays it out for oneDNN once)");
}

}  // namespace
}  // namespace edgec
