// Refusal cases of ops_elementwise.cpp and ops_index.cpp: one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

void add_elementwise_index_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // ---- ops_elementwise.cpp ----
  {
    Model m;
    m.x();
    attr(m.node("Mod", {"x", "x"}, {"y"}), "fmod", int64_t{0});
    m.output("y");
    add(node_case("fmod 0 on floats", m, "Mod", "attribute 'fmod'"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{TensorProto::COMPLEX64});
    m.output("y");
    add(node_case("cast to complex64", m, "Cast", "attribute 'to' is complex64"));
  }
  {
    Model m;
    m.input("a", {"2"}, TensorProto::UINT8).input("b", {"2"}, TensorProto::UINT8);
    attr(m.node("BitShift", {"a", "b"}, {"y"}), "direction", "UP");
    m.output("y");
    add(node_case("bit shift direction", m, "BitShift", "attribute 'direction' is 'UP'; expected 'LEFT' or 'RIGHT'"));
  }
  // ---- Compress and ReverseSequence (ops_index.cpp) ----
  auto compress = [](const std::vector<std::string>& x_dims, const std::vector<std::string>& cond_dims,
                     std::optional<int64_t> axis) {
    Model m;
    m.input("x", x_dims).input("cond", cond_dims, TensorProto::BOOL);
    auto* n = m.node("Compress", {"x", "cond"}, {"y"});
    if (axis) attr(n, "axis", *axis);
    m.output("y");
    return m;
  };
  add(node_case("compress condition of rank 2", compress({"2", "3"}, {"2", "1"}, 0), "Compress",
                "is not a 1-D bool tensor; expected a condition of rank 1 and type bool"));
  add(node_case("compress of a scalar along an axis", compress({}, {"1"}, 0), "Compress",
                "is a scalar; expected a tensor of rank >= 1 for an axis"));
  add(node_case("compress condition longer than the axis", compress({"2", "3"}, {"3"}, 0), "Compress",
                "is longer than the 2 slices along axis 0"));
  auto reverse = [](const std::vector<std::string>& x_dims, int64_t lens, int64_t time, int64_t batch) {
    Model m;
    m.input("x", x_dims).input("lens", {std::to_string(lens)}, TensorProto::INT64);
    auto* n = m.node("ReverseSequence", {"x", "lens"}, {"y"});
    attr(n, "time_axis", time);
    attr(n, "batch_axis", batch);
    m.output("y");
    return m;
  };
  add(node_case("reverse sequence of rank 1", reverse({"4"}, 4, 0, 0), "ReverseSequence",
                "has rank 1; expected rank >= 2 (time and batch)"));
  add(node_case("reverse sequence with one axis twice", reverse({"4", "2"}, 2, 0, 0), "ReverseSequence",
                "attributes 'time_axis' and 'batch_axis' are 0 and 0; expected 0 and 1, or 1 and 0"));
  add(node_case("reverse sequence of a symbolic time dim", reverse({"t", "2"}, 2, 0, 1), "ReverseSequence",
                "has a symbolic time or batch dim; expected static ones"));
  add(node_case("reverse sequence with lengths of another batch", reverse({"4", "2"}, 3, 0, 1), "ReverseSequence",
                "is not one integer length per batch entry; expected an i64 tensor [2]"));
  {
    Model m;
    m.x().input("mode", {}, TensorProto::BOOL).node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout mode at run time", m, "Dropout", "input 2 'training_mode' (value 'mode')"));
  }
  {
    Model m;
    m.x().ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout in training", m, "Dropout", "input 2 'training_mode' (value 'mode') is true"));
  }
  {
    Model m;
    m.x().ints("mode", {1, 0}, {2}, TensorProto::BOOL);
    m.node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout mode of two values", m, "Dropout", "input 2 'training_mode' (value 'mode') is bool[2]"));
  }
  {
    Model m;
    m.x().input("r", {}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout ratio at run time", m, "Dropout", "input 1 'ratio' (value 'r')"));
  }
  {
    Model m;
    m.x().floats("r", {0.f, 0.f}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout ratio of two values", m, "Dropout", "input 1 'ratio' (value 'r') is f32[2]"));
  }
  {
    Model m;
    m.x().floats("r", {0.25f}, {}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout in training with a ratio", m, "Dropout", "is true with a ratio of 0.25"));
  }
  {
    Model m;
    m.node("Constant", {}, {"y"});
    m.output("y");
    add(node_case("constant without a value", m, "Constant", "attribute holding the value"));
  }
  {
    Model m;
    auto* a = m.node("Constant", {}, {"y"})->add_attribute();
    a->set_name("sparse_value");
    a->set_type(AttributeProto::SPARSE_TENSOR);
    m.output("y");
    add(node_case("sparse constant", m, "Constant", "attribute 'sparse_value'"));
  }

  // ---- ops_index.cpp ----
  {
    Model m;
    m.x().ints("i", {0}, {1, 1, 1, 1});
    attr(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{5});
    m.output("y");
    add(node_case("gather_elements axis", m, "GatherElements", "attribute 'axis' is 5"));
  }
  {
    Model m;
    m.x();
    attr(m.node("ReduceMean", {"x"}, {"y"}), "axes", std::vector<int64_t>{1, -3});
    m.output("y");
    add(node_case("reduce axes twice", m, "ReduceMean", "attribute 'axes' is [1, -3]; expected distinct axes"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1});
    m.node("GatherElements", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_elements rank", m, "GatherElements", "input 1 'indices' (value 'i', i64[1]) has rank 1"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1, 1});
    attr(m.node("GatherND", {"x", "i"}, {"y"}), "batch_dims", int64_t{2});
    m.output("y");
    add(node_case("gather_nd batch_dims", m, "GatherND", "attribute 'batch_dims' is 2; expected 0 to 1"));
  }
  {
    Model m;
    m.x().ints("i", {0, 0}, {2, 1});
    attr(m.node("GatherND", {"x", "i"}, {"y"}), "batch_dims", int64_t{1});
    m.output("y");
    add(node_case("gather_nd batch sizes", m, "GatherND",
                  "batch dim 0 is 1 in input 0 'data' (value 'x', f32[1, 2, 4, 4]) and 2 in input 1 'indices'"));
  }
  {
    Model m;
    m.x().input("i", {"k"}, TensorProto::INT64).node("GatherND", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_nd symbolic coordinates", m, "GatherND", "input 1 'indices' (value 'i', i64[k])"));
  }
  {
    Model m;
    m.x().ints("i", {0, 0, 0, 0, 0}, {1, 5}).node("GatherND", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_nd too many coordinates", m, "GatherND", "input 1 'indices' (value 'i', i64[1, 5]) has 5"));
  }
  {
    Model m;
    m.x().ints("k", {10}).node("TopK", {"x", "k"}, {"v", "i"});
    m.output("v");
    add(node_case("topk K past the dim", m, "TopK", "K, input 1 'K' (value 'k'), is 10"));
  }
  {
    Model m;
    m.input("x", {}).node("ArgMax", {"x"}, {"y"});
    m.output("y");
    add(node_case("argmax of a scalar", m, "ArgMax", "input 0 'data' (value 'x', f32[]) is a scalar"));
  }
  {
    // min and max came at opset 18.
    Model m;
    m.x().ints("i", {0}, {1, 1}).floats("u", std::vector<float>(32, 0), {1, 2, 4, 4});
    attr(m.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", "max");
    m.output("y");
    add(node_case("scatter_nd reduction", m, "ScatterND", "attribute 'reduction' is 'max'; expected none, add or mul"));
  }
  {
    Model m;
    m.x().input("i", {"k"}, TensorProto::INT64).floats("u", {0}, {1});
    m.node("ScatterND", {"x", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd symbolic coordinates", m, "ScatterND", "input 1 'indices' (value 'i', i64[k])"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0}, {}).floats("u", {0, 0}, {2});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd scalar indices", m, "ScatterND", "input 1 'indices' (value 'i', i64[]) is a scalar"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0, 0, 0}, {1, 3}).floats("u", {0}, {1});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd too many coordinates", m, "ScatterND", "input 1 'indices' (value 'i', i64[1, 3]) has 3"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0}, {1, 1}).floats("u", {0, 0, 0}, {1, 3});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd updates of another shape", m, "ScatterND", "input 2 'updates' (value 'u', f32[1, 3])"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {5}, {1, 1}).floats("u", {0, 0}, {1, 2});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd index out of range", m, "ScatterND", "input 1 'indices' (value 'i', i64[1, 1]) holds"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1}).floats("u", {0}, {1});
    m.node("ScatterElements", {"x", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_elements rank", m, "ScatterElements", "input 1 'indices' (value 'i', i64[1]) has rank 1"));
  }

  // ---- Unique (ops_index.cpp) ----
  {
    Model m;
    m.input("x", {}).node("Unique", {"x"}, {"y"});
    attr(t_node(m), "axis", int64_t{0});
    m.output("y");
    add(node_case("unique of a scalar along an axis", m, "Unique",
                  "is a scalar; expected a tensor of rank >= 1 for attribute 'axis'"));
  }

  // ---- LpNormalization (ops_index.cpp) ----
  {
    Model m;
    m.x().node("LpNormalization", {"x"}, {"y"});
    attr(t_node(m), "p", int64_t{3});
    m.output("y");
    add(node_case("lp norm p 3", m, "LpNormalization", "attribute 'p' is 3; expected 1 or 2"));
  }
}

}  // namespace edgec::refusal_cases
