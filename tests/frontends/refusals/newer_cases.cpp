// Refusal cases of operators of opsets past 17 (ops_newer.cpp,
// ops_transformer.cpp, ops_shape.cpp), ops_loss.cpp and ops_generators.cpp: one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

void add_newer_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // ---- operators of opsets past 17 (ops_newer.cpp, ops_shape.cpp) ----
  {
    Model m(20);
    attr(m.x().node("Gelu", {"x"}, {"y"}), "approximate", "erf");
    m.output("y");
    add(node_case("gelu approximate", m, "Gelu", "attribute 'approximate' is 'erf'; expected none or tanh", 20));
  }
  auto group_norm = [](const std::vector<std::string>& x_dims, int64_t groups, int64_t params) {
    Model m(18);
    m.input("x", x_dims).weight("s", {params}).weight("b", {params});
    attr(m.node("GroupNormalization", {"x", "s", "b"}, {"y"}), "num_groups", groups);
    m.output("y");
    return m;
  };
  add(node_case("group norm rank", group_norm({"1", "2"}, 1, 1), "GroupNormalization",
                "input 0 'X' (value 'x', f32[1, 2]) has rank 2; expected (N, C, ...)", 18));
  add(node_case("group norm symbolic channels", group_norm({"1", "c", "4"}, 1, 1), "GroupNormalization",
                "the channel dim c of input 0 'X'", 18));
  add(node_case("group norm groups", group_norm({"1", "6", "4"}, 4, 4), "GroupNormalization",
                "attribute 'num_groups' is 4; expected a divisor of the 6 channels", 18));
  add(node_case("group norm scale per group", group_norm({"1", "6", "4"}, 3, 6), "GroupNormalization",
                "input 1 'scale' (value 's', f32[6]) has shape f32[6]; expected [3] (one per group at opset 18)", 18));
  {
    Model m(23);
    m.x().weight("s", {4});
    attr(m.node("RMSNormalization", {"x", "s"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("rms norm axis", m, "RMSNormalization", "attribute 'axis' is 4; expected an axis in [-4, 3]", 23));
  }
  {
    Model m(23);
    m.x().input("s", {"4"}, TensorProto::FLOAT16).node("RMSNormalization", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("rms norm scale type", m, "RMSNormalization",
                  "input 1 'scale' (value 's', f16[4]) has another element type than input 0 'X'", 23));
  }
  {
    Model m(18);
    m.x().ints("pads", {1, 1, 1}).ints("axes", {1, 2}).node("Pad", {"x", "pads", "", "axes"}, {"y"});
    m.output("y");
    add(node_case("pad pads for the axes", m, "Pad",
                  "the pads, input 1 'pads', are [1, 1, 1]; expected 4 (begins, then ends, for each of the axes [1, "
                  "2])",
                  18));
  }
  auto split18 = [](const std::vector<std::string>& x_dims, int64_t num, int outputs) {
    Model m(18);
    std::vector<std::string> outs;
    for (int i = 0; i < outputs; ++i) outs.push_back("o" + std::to_string(i));
    m.input("x", x_dims);
    auto* n = m.node("Split", {"x"}, outs);
    attr(n, "num_outputs", num);
    attr(n, "axis", int64_t{1});
    m.output("o0");
    return m;
  };
  add(node_case("split num_outputs count", split18({"1", "6"}, 3, 2), "Split",
                "attribute 'num_outputs' is 3; expected 2, the number of outputs", 18));
  add(node_case("split num_outputs symbolic", split18({"1", "n"}, 2, 2), "Split",
                "cannot split the symbolic dim n of input 0 'input'", 18));
  add(node_case("split num_outputs too small", split18({"1", "4"}, 3, 3), "Split",
                "has size 4, too small for 3 parts of 2 (num_outputs)", 18));
  {
    Model m(11);
    attr(m.x().node("Softmax", {"x"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("old softmax axis", m, "Softmax", "attribute 'axis' is 4; expected an axis in [-4, 3]", 11));
  }

  // ---- ops_newer.cpp and ops_transformer.cpp (opsets 18 and 23) ----
  {
    Model m(18);
    m.input("x", {"2", "4", "6"}).ints("shape", {2, 2});
    attr(m.node("CenterCropPad", {"x", "shape"}, {"y"}), "axes", std::vector<int64_t>{1, -2});
    m.output("y");
    add(node_case("centercroppad repeated axis", m, "CenterCropPad", "attribute 'axes' is [1, -2]", 18));
  }
  {
    Model m(18);
    m.input("x", {"2", "4", "6"}).ints("shape", {2, 2});
    m.node("CenterCropPad", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("centercroppad shape count", m, "CenterCropPad", "the shape, input 1 'shape', is [2, 2]; expected 3",
                  18));
  }
  {
    Model m(18);
    m.input("x", {"n", "4"}).ints("shape", {2, 2});
    m.node("CenterCropPad", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("centercroppad of a symbolic dim", m, "CenterCropPad", "axis 0 of input 0 'input_data'", 18));
  }
  // RotaryEmbedding of x with cos and sin caches (without position_ids).
  auto rotary = [](const std::vector<std::string>& x, const std::vector<std::string>& cache) {
    Model m(23);
    m.input("x", x).input("c", cache).input("s", cache);
    m.node("RotaryEmbedding", {"x", "c", "s"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("rotary of rank 2", rotary({"2", "8"}, {"2", "4"}), "RotaryEmbedding",
                "input 0 'X' (value 'x', f32[2, 8]) has rank 2", 23));
  add(node_case("rotary head size symbolic", rotary({"1", "2", "5", "d"}, {"1", "5", "4"}), "RotaryEmbedding",
                "the last dim d of input 0 'X'", 23));
  add(node_case("rotary 3-D without num_heads", rotary({"1", "5", "8"}, {"1", "5", "2"}), "RotaryEmbedding",
                "attribute 'num_heads' is absent", 23));
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "num_heads", int64_t{3});
    add(node_case("rotary num_heads of a 4-D input", m, "RotaryEmbedding",
                  "attribute 'num_heads' is 3; expected the heads dim 2", 23));
  }
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "interleaved", int64_t{2});
    add(node_case("rotary interleaved 2", m, "RotaryEmbedding", "attribute 'interleaved' is 2", 23));
  }
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "rotary_embedding_dim", int64_t{3});
    add(node_case("rotary odd rotary dim", m, "RotaryEmbedding", "attribute 'rotary_embedding_dim' is 3", 23));
  }
  add(node_case("rotary cache shape", rotary({"1", "2", "5", "8"}, {"1", "5", "3"}), "RotaryEmbedding",
                "input 1 'cos_cache' (value 'c') has shape f32[1, 5, 3]", 23));
  {
    Model m(23);
    m.input("x", {"1", "2", "5", "8"}).input("c", {"9", "4"}).input("s", {"9", "4"});
    m.input("p", {"5"}, TensorProto::INT64).node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"});
    m.output("y");
    add(node_case("rotary position_ids of rank 1", m, "RotaryEmbedding", "input 3 'position_ids' (value 'p', i64[5])",
                  23));
  }
  {
    Model m = rotary({"b", "s", "8"}, {"b", "s", "2"});
    attr(t_node(m), "num_heads", int64_t{2});
    add(node_case("rotary 3-D of symbolic batch and sequence", m, "RotaryEmbedding",
                  "cannot split input 0 'X' (value 'x', f32[b, s, 8]) into 2 heads", 23));
  }
  // Attention of q, k and v (and optional inputs by name).
  auto attention = [](const std::vector<std::string>& q, const std::vector<std::string>& kv,
                      const std::vector<std::string>& more = {}) {
    Model m(23);
    m.input("q", q).input("k", kv).input("v", kv);
    std::vector<std::string> ins = {"q", "k", "v"};
    ins.insert(ins.end(), more.begin(), more.end());
    m.node("Attention", ins, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("attention of rank 2", attention({"2", "8"}, {"2", "8"}), "Attention",
                "input 0 'Q' (value 'q', f32[2, 8]) has rank 2", 23));
  add(node_case("attention ranks differ", attention({"1", "2", "3", "8"}, {"1", "3", "16"}), "Attention",
                "input 1 'K' (value 'k', f32[1, 3, 16]) is not of the rank", 23));
  add(node_case("attention 3-D without heads", attention({"1", "3", "16"}, {"1", "3", "16"}), "Attention",
                "attribute 'q_num_heads' is absent", 23));
  add(node_case("attention symbolic heads", attention({"1", "h", "3", "8"}, {"1", "h", "3", "8"}), "Attention",
                "the heads dims of input 0 'Q'", 23));
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "q_num_heads", int64_t{5});
    add(node_case("attention q_num_heads of 4-D inputs", m, "Attention", "attribute 'q_num_heads' is 5; expected 2",
                  23));
  }
  add(node_case("attention heads not grouped", attention({"1", "3", "3", "8"}, {"1", "2", "3", "8"}), "Attention",
                "the 3 query heads are not a multiple of the 2 key/value heads", 23));
  {
    Model m = attention({"1", "3", "10"}, {"1", "3", "10"});
    attr(t_node(m), "q_num_heads", int64_t{3});
    attr(t_node(m), "kv_num_heads", int64_t{3});
    add(node_case("attention hidden not a multiple", m, "Attention", "the hidden size 10 of input 0 'Q'", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"", "pk"});
    m.input("pk", {"1", "2", "4", "8"});
    add(node_case("attention past_key alone", m, "Attention", "past_key, input 4 'past_key' (value 'pk'), and", 23));
  }
  add(node_case("attention symbolic head size", attention({"1", "2", "3", "d"}, {"1", "2", "3", "d"}), "Attention",
                "the head size of input 0 'Q' (value 'q', f32[1, 2, 3, d]) is symbolic", 23));
  {
    Model m(23);
    m.input("q", {"1", "2", "3", "8"}).input("k", {"1", "2", "3", "8"}).input("v", {"1", "2", "3", "8"});
    attr(m.node("Attention", {"q", "k", "v"}, {"y", "", "", "qk"}), "qk_matmul_output_mode", int64_t{1});
    m.output("y").output("qk");
    add(node_case("attention qk_matmul_output_mode 1", m, "Attention", "attribute 'qk_matmul_output_mode' is 1", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"mask"});
    m.input("mask", {"3", "3"}, TensorProto::INT32);
    add(node_case("attention integer mask", m, "Attention",
                  "input 3 'attn_mask' (value 'mask', i32[3, 3]) has element type i32; expected bool or f32", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"mask"});
    m.input("mask", {"3", "3", "3"}, TensorProto::BOOL);
    add(node_case("attention mask of other heads", m, "Attention",
                  "input 3 'attn_mask' (value 'mask', bool[3, 3, 3]) does not broadcast to f32[1, 2, 3, 3]", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "is_causal", int64_t{2});
    add(node_case("attention is_causal 2", m, "Attention", "attribute 'is_causal' is 2", 23));
  }
  {
    Model m(23);
    m.input("q", {"1", "2", "3", "8"}).input("k", {"1", "2", "3", "8"}).input("v", {"1", "2", "3", "8"});
    m.input("pk", {"1", "2", "p", "8"}).input("pv", {"1", "2", "p", "8"});
    attr(m.node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y", "pko", "pvo"}), "is_causal", int64_t{1});
    m.output("y");
    add(node_case("attention causal of a symbolic past", m, "Attention", "the past sequence dim p of input 4", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "softmax_precision", int64_t{11});
    add(node_case("attention softmax in double", m, "Attention", "attribute 'softmax_precision' is 11", 23));
  }

  // ---- ops_loss.cpp, and Hardmax before opset 13 (opsets.cpp) ----
  auto nll = [](const std::string& op, const std::vector<std::string>& x, const std::vector<std::string>& t) {
    Model m;
    m.input("x", x).input("t", t, TensorProto::INT64).node(op, {"x", "t"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = nll("NegativeLogLikelihoodLoss", {"2", "3"}, {"2"});
    attr(t_node(m), "reduction", "max");
    add(node_case("nll reduction", m, "NegativeLogLikelihoodLoss",
                  "attribute 'reduction' is 'max'; expected 'none', 'sum' or 'mean'"));
  }
  add(node_case("nll input rank 1", nll("NegativeLogLikelihoodLoss", {"3"}, {}), "NegativeLogLikelihoodLoss",
                "input 0 'input' (value 'x', f32[3]) has rank 1; expected rank >= 2"));
  add(node_case("nll target rank", nll("NegativeLogLikelihoodLoss", {"2", "3"}, {"2", "1"}),
                "NegativeLogLikelihoodLoss", "input 1 'target' (value 't', i64[2, 1]) has rank 2; expected rank 1"));
  add(node_case("sce scores rank 1", nll("SoftmaxCrossEntropyLoss", {"3"}, {}), "SoftmaxCrossEntropyLoss",
                "input 0 'scores' (value 'x', f32[3]) has rank 1; expected rank >= 2"));
  {
    Model m;
    attr(m.x().node("Hardmax", {"x"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("hardmax axis", m, "Hardmax", "attribute 'axis' is 4; expected an axis in [-4, 3]"));
  }
  {
    Model m(11);
    attr(m.x().node("Hardmax", {"x"}, {"y"}), "axis", int64_t{-5});
    m.output("y");
    add(node_case("old hardmax axis", m, "Hardmax", "attribute 'axis' is -5; expected an axis in [-4, 3]", 11));
  }
  {
    Model m(11);
    m.input("x", {"n", "2", "h", "4"}).node("Hardmax", {"x"}, {"y"});
    m.output("y");
    add(node_case("old hardmax two symbolic dims", m, "Hardmax",
                  "cannot coerce input 0 'input' (value 'x', f32[n, 2, h, 4]) to 2-D at axis 1", 11));
  }
  // ---- ops_generators.cpp ----
  {
    Model m;
    attr(m.input("x", {"2", "3"}).node("EyeLike", {"x"}, {"y"}), "dtype", int64_t{8});
    m.output("y");
    add(node_case("eyelike dtype", m, "EyeLike", "attribute 'dtype' is 8 (string), which edgec does not compute with"));
  }
  {
    Model m;
    m.input("x", {"n", "3"}).node("EyeLike", {"x"}, {"y"});
    m.output("y");
    add(node_case("eyelike symbolic shape", m, "EyeLike", "input 0 'input' (value 'x', f32[n, 3]) is not of a static 2-D"));
  }
  auto one_hot = [](const std::function<void(Model&)>& depth) {
    Model m;
    m.x().floats("v", {0, 1});
    depth(m);
    m.node("OneHot", {"x", "d", "v"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("onehot depth at run time", one_hot([](Model& m) { m.input("d", {}); }), "OneHot",
                "must be known at import time"));
  add(node_case("onehot depth of two values", one_hot([](Model& m) { m.ints("d", {2, 3}); }), "OneHot",
                "holds 2 values; expected one"));
  add(node_case("onehot depth 0", one_hot([](Model& m) { m.ints("d", {0}, {}); }), "OneHot",
                "the depth, input 1 'depth' (value 'd'), is 0; expected >= 1"));
  {
    Model m = one_hot([](Model& m) { m.ints("d", {3}, {}); });
    attr(t_node(m), "axis", int64_t{5});
    add(node_case("onehot axis", m, "OneHot", "attribute 'axis' is 5; expected an axis in [-5, 4]"));
  }
  // Windows: the size must be known at import time (a run-time size is
  // refused at the shared int-operand site, naming the input and the flag
  // that fixes it) and in range.
  {
    Model m;
    m.input("s", {}, TensorProto::INT64).node("HannWindow", {"s"}, {"y"});
    m.output("y");
    add(node_case("window size at run time", m, "HannWindow",
                  "the window size, input 0 'size' (value 's'), must be known at import time"));
    add(node_case("window size at run time names the fix", m, "HannWindow",
                  "--fix-inputs FILE.npz with an array named 's'"));
  }
  {
    Model m;
    m.ints("s", {-3}, {}).node("BlackmanWindow", {"s"}, {"y"});
    m.output("y");
    add(node_case("window size negative", m, "BlackmanWindow",
                  "the window size, input 0 'size' (value 's'), is -3; expected a size in [0, 16777216]"));
  }
  // DFT, STFT and MelWeightMatrix (ops_generators.cpp).
  const auto dft = [](const std::vector<std::string>& signal, const std::function<void(Model&)>& edit,
                      std::vector<std::string> ins = {"x"}) {
    Model m;
    m.input("x", signal);
    edit(m);
    m.node("DFT", ins, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = dft({"1", "8", "1"}, [](Model&) {});
    attr(t_node(m), "axis", int64_t{2});
    add(node_case("dft axis on the components", m, "DFT",
                  "the axis is 2; expected one in [-3, -2] or [0, 1] for input 0 'input' (value 'x', f32[1, 8, 1])"));
  }
  add(node_case("dft length 0", dft({"1", "8", "1"}, [](Model& m) { m.ints("n", {0}, {}); }, {"x", "n"}), "DFT",
                "the DFT length, input 1 'dft_length' (value 'n'), is 0; expected >= 1"));
  {
    Model m = dft({"1", "8", "2"}, [](Model&) {});
    attr(t_node(m), "inverse", int64_t{1});
    attr(t_node(m), "onesided", int64_t{1});
    add(node_case("dft inverse onesided", m, "DFT", "attributes 'inverse' and 'onesided' are both 1"));
  }
  // STFT(x, step = 4, window w, frame_length n) of x: f32[1, 64, 1] unless
  // `edit` gives another (before the node).
  const auto stft = [](const std::function<void(Model&)>& edit, std::vector<std::string> ins = {"x", "step", "w"}) {
    Model m;
    m.ints("step", {4}, {});
    edit(m);
    m.node("STFT", ins, {"y"});
    m.output("y");
    return m;
  };
  const auto signal = [](Model& m) { m.input("x", {"1", "64", "1"}); };
  add(node_case("stft signal rank", stft([](Model& m) { m.input("x", {"64"}).weight("w", {16}); }), "STFT",
                "input 0 'signal' (value 'x', f32[64]) is not a signal [batch, length, 1 or 2]"));
  add(node_case("stft signal length symbolic", stft([](Model& m) { m.input("x", {"1", "n", "1"}).weight("w", {16}); }),
                "STFT", "the signal's length, dim 1 of input 0 'signal' (value 'x', f32[1, n, 1]), must be static"));
  add(node_case("stft step 0", stft([&](Model& m) {
                  signal(m);
                  m.g()->mutable_initializer(0)->set_int64_data(0, 0);
                  m.weight("w", {16});
                }),
                "STFT", "the frame step, input 1 'frame_step' (value 'step'), is 0; expected >= 1"));
  add(node_case("stft window of two dims", stft([&](Model& m) { signal(m); m.weight("w", {2, 8}); }), "STFT",
                "input 2 'window' (value 'w', f32[2, 8]) is not a window of static size [frame_length]"));
  add(node_case("stft window and frame length differ", stft([&](Model& m) {
                  signal(m);
                  m.weight("w", {16}).ints("n", {8}, {});
                }, {"x", "step", "w", "n"}),
                "STFT", "the frame length, input 3 'frame_length' (value 'n'), is 8 but the window"));
  add(node_case("stft no frame length", stft(signal, {"x", "step"}), "STFT",
                "neither a window (input 2) nor a frame length (input 3) is given"));
  add(node_case("stft frame longer than the signal", stft([&](Model& m) {
                  signal(m);
                  m.ints("n", {100}, {});
                }, {"x", "step", "", "n"}),
                "STFT", "the frame length is 100; expected one in [1, 64]"));
  add(node_case("stft window of another type", stft([&](Model& m) {
                  signal(m);
                  auto* w = m.g()->add_initializer();
                  w->set_name("w");
                  w->set_data_type(TensorProto::DOUBLE);
                  w->add_dims(16);
                  for (int i = 0; i < 16; ++i) w->add_double_data(1.0);
                }),
                "STFT", "window"));
  // MelWeightMatrix(bins, dft_length, rate, lower, upper), initializers
  // unless `edit` makes one another.
  const auto mel = [](int64_t bins, int64_t length, int64_t rate, float lower, float upper,
                      const std::function<void(Model&)>& edit = {}) {
    Model m;
    m.ints("bins", {bins}, {}).ints("len", {length}, {}).ints("rate", {rate}, {});
    if (edit) {
      edit(m);
    } else {
      m.floats("lo", {lower}, {}).floats("hi", {upper}, {});
    }
    m.node("MelWeightMatrix", {"bins", "len", "rate", "lo", "hi"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("mel lower edge at run time", mel(8, 16, 8000, 0, 0, [](Model& m) {
                  m.input("lo", {}).floats("hi", {4000}, {});
                }),
                "MelWeightMatrix", "the lower edge, input 3 'lower_edge_hertz' (value 'lo'), must be known at import time"));
  add(node_case("mel edge of two values", mel(8, 16, 8000, 0, 0, [](Model& m) {
                  m.floats("lo", {0, 1}).floats("hi", {4000}, {});
                }),
                "MelWeightMatrix", "input 3 'lower_edge_hertz' (value 'lo', f32[2]) holds 2 values; expected one"));
  add(node_case("mel no bins", mel(0, 16, 8000, 0, 4000), "MelWeightMatrix",
                "the number of mel bins, input 0 'num_mel_bins' (value 'bins'), is 0; expected one in [1, 16777216]"));
  add(node_case("mel dft length 0", mel(8, 0, 8000, 0, 4000), "MelWeightMatrix",
                "the DFT length, input 1 'dft_length' (value 'len'), is 0; expected one in [1, 16777216]"));
  add(node_case("mel sample rate 0", mel(8, 16, 0, 0, 4000), "MelWeightMatrix",
                "the sample rate, input 2 'sample_rate' (value 'rate'), is 0; expected >= 1"));
  add(node_case("mel edges reversed", mel(8, 16, 8000, 3000, 1000), "MelWeightMatrix",
                "expected 0 <= lower < upper <= half the sample rate (8000 Hz)"));
  add(node_case("mel matrix too large", mel(1 << 24, 1 << 20, 8000, 0, 4000), "MelWeightMatrix",
                "values; expected at most 16777216"));
}

}  // namespace edgec::refusal_cases
