// Refusal cases of ops_shape.cpp and ops_einsum.cpp: one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

void add_shape_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // ---- ops_shape.cpp ----
  {
    Model m;
    m.x();
    attr(m.node("Split", {"x"}, {"a", "b"}), "axis", int64_t{7});
    m.output("a");
    add(node_case("split axis", m, "Split", "attribute 'axis' is 7"));
  }
  {
    Model m;
    m.x().ints("axes", {0, -4}).node("Squeeze", {"x", "axes"}, {"y"});
    m.output("y");
    add(node_case("squeeze axes twice", m, "Squeeze", "the axes, input 1 'axes', is [0, -4]; expected distinct"));
  }
  {
    Model m;
    m.x().ints("shape", std::vector<int64_t>(9, 1)).node("Expand", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("expand to rank 9", m, "Expand", "the target shape, input 1 'shape', has 9 sizes"));
  }
  {
    Model m;
    m.ints("shape", {-2}).node("ConstantOfShape", {"shape"}, {"y"});
    m.output("y");
    add(node_case("constant of a negative shape", m, "ConstantOfShape", "the shape, input 0 'input' (value 'shape'),"));
  }
  {
    Model m;
    m.input("x", {"n"}).ints("two", {2}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Mul", {"s", "two"}, {"s2"}, "/mul");
    m.node("Expand", {"x", "s2"}, {"y"});
    m.output("y");
    add(node_case("expand to a computed size", m, "Expand", "the target shape, input 1 'shape' (value 's2'),"));
  }
  {
    Model m;
    m.x().ints("i", {5}, {}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Gather", {"s", "i"}, {"y"});
    m.output("y");
    add(node_case("gather past a shape", m, "Gather", "input 1 'indices' (value 'i') holds the index 5"));
  }
  {
    Model m;
    m.x().input("shape", {"2"}, TensorProto::INT64).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape to a run-time shape", m, "Reshape", "the target shape, input 1 'shape',"));
  }
  {
    Model m;
    m.x().ints("shape", {-1, -1}).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape with two -1", m, "Reshape", "the target shape, input 1 'shape', is [-1, -1]"));
  }
  {
    Model m;
    m.x().ints("shape", {1, 2, 4, 4, 0}).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape copying a dim past the rank", m, "Reshape", "whose 0 at index 4"));
  }
  {
    Model m;
    m.input("x", {"n", "m"}).ints("flat", {-1}).node("Reshape", {"x", "flat"}, {"f"}, "/flat");
    m.node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Reshape", {"f", "s"}, {"y"});
    m.output("y");
    add(node_case("reshape with two symbolic sizes", m, "Reshape", "the target shape, input 1 'shape' (value 's'):"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Flatten", {"x"}, {"y"}), "axis", int64_t{5});
    m.output("y");
    add(node_case("flatten axis", m, "Flatten", "attribute 'axis' is 5"));
  }
  {
    Model m;
    m.x().ints("axes", {0, 1, 2, 3, 4}).node("Unsqueeze", {"x", "axes"}, {"y"});
    m.output("y");
    add(node_case("unsqueeze to rank 9", m, "Unsqueeze", "the axes, input 1 'axes', add 5 dims"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{-1, 0, 1, 2});
    m.output("y");
    add(node_case("transpose perm", m, "Transpose", "attribute 'perm' is [-1, 0, 1, 2]"));
  }
  {
    Model m;
    m.x().input("shape", {"4"}, TensorProto::INT64).node("Expand", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("expand to a run-time shape", m, "Expand", "the target shape, input 1 'shape',"));
  }
  {
    Model m;
    m.x().ints("r", {1, 2}).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("tile repeats count", m, "Tile", "the repeats, input 1 'repeats' (value 'r'), are [1, 2]"));
  }
  {
    Model m;
    m.x().ints("r", {1, -1, 1, 1}).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("tile negative repeats", m, "Tile", "the repeats, input 1 'repeats' (value 'r'), are [1, -1"));
  }
  auto pad = [](const std::vector<int64_t>& pads, const std::vector<std::string>& extra = {}) {
    Model m;
    std::vector<std::string> ins = {"x", "p"};
    ins.insert(ins.end(), extra.begin(), extra.end());
    m.x().ints("p", pads).node("Pad", ins, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = pad(std::vector<int64_t>(8, 0));
    attr(t_node(m), "mode", "wrap");
    add(node_case("pad mode", m, "Pad", "attribute 'mode' is 'wrap'"));
  }
  add(node_case("pad count", pad({1, 1}), "Pad", "the pads, input 1 'pads' (value 'p'), are [1, 1]"));
  {
    Model m = pad(std::vector<int64_t>(8, 0), {"v"});
    m.input("v", {});
    add(node_case("pad value at run time", m, "Pad", "the pad value, input 2 'constant_value' (value 'v'),"));
  }
  {
    Model m = pad(std::vector<int64_t>(8, 0), {"v"});
    m.floats("v", {1, 2});
    add(node_case("pad value of two", m, "Pad", "the pad value, input 2 'constant_value' (value 'v'), is f32[2]"));
  }
  {
    Model m;
    m.input("a", {}).input("b", {}).node("Concat", {"a", "b"}, {"y"});
    attr(t_node(m), "axis", int64_t{0});
    m.output("y");
    add(node_case("concat of scalars", m, "Concat", "input 0 'inputs' (value 'a', f32[]) is a scalar"));
  }
  auto split = [](const std::vector<std::string>& outs) {
    Model m;
    m.x();
    attr(m.node("Split", {"x", "s"}, outs), "axis", int64_t{1});
    m.output(outs[0]);
    return m;
  };
  {
    Model m = split({"a", "b"});
    m.ints("s", {1, 1, 0});
    add(node_case("split sizes count", m, "Split", "the split sizes, input 1 'split' (value 's'), are [1, 1, 0]"));
  }
  {
    Model m = split({"a", "b"});
    m.ints("s", {3, -1});
    add(node_case("split negative size", m, "Split", "the split sizes, input 1 'split' (value 's'), are [3, -1]"));
  }
  {
    Model m = split({"a", "b"});
    m.ints("s", {1, 2});
    add(node_case("split sizes sum", m, "Split", "are [1, 2], summing to 3"));
  }
  {
    Model m;
    m.input("x", {"n", "2"});
    m.node("Split", {"x"}, {"a", "b"});
    m.output("a");
    add(node_case("split a symbolic dim", m, "Split", "cannot split the symbolic dim n of input 0 'input'"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Split", {"x"}, {"a", "b", "c"}), "axis", int64_t{2});
    m.output("a");
    add(node_case("split into unequal parts", m, "Split", "dim 2 of input 0 'input' (value 'x', f32[1, 2, 4, 4])"));
  }
  auto slice = [](const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
    Model m;
    m.x().ints("starts", {0}).ints("ends", {1}).ints("axes", axes).ints("steps", steps);
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("slice axes count", slice({0, 1}, {1}), "Slice",
                "input 3 'axes' is [0, 1]; expected as many entries as input 1 'starts'"));
  add(node_case("slice step 0", slice({0}, {0}), "Slice", "the steps, input 4 'steps', are [0]"));
  {
    Model m;
    m.input("shape", {"2"}, TensorProto::INT64).node("ConstantOfShape", {"shape"}, {"y"});
    m.output("y");
    add(node_case("constant of a run-time shape", m, "ConstantOfShape", "the shape, input 0 'input' (value 'shape'),"));
  }
  {
    Model m;
    m.ints("shape", {2});
    attr_tensor(m.node("ConstantOfShape", {"shape"}, {"y"}), "value", 2);
    m.output("y");
    add(node_case("constant of shape with two values", m, "ConstantOfShape", "attribute 'value' is f32[2]"));
  }
  auto range = [](Model m) {
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m;
    m.ints("start", {0, 1}).ints("limit", {5}, {}).ints("delta", {1}, {});
    add(node_case("range start of two", range(m), "Range", "input 0 'start' (i64[2]) is not a scalar"));
  }
  {
    Model m;
    m.ints("start", {0}, {}).ints("limit", {5}, {}).ints("delta", {0}, {});
    add(node_case("range step 0", range(m), "Range", "input 2 'delta' is 0"));
  }
  {
    Model m;
    m.ints("start", {0}, {}).input("limit", {}, TensorProto::INT64).ints("delta", {1}, {});
    add(node_case("range to a run-time limit", range(m), "Range", "input 1 'limit'"));
  }
  {
    Model m;
    // Expand's shape function leaves the size to the verifier (ConstantOfShape's refuses it).
    m.input("x", {"1"}).ints("shape", {int64_t{1} << 32, int64_t{1} << 32});
    m.node("Expand", {"x", "shape"}, {"c"}, "/big");
    m.node("Size", {"c"}, {"y"});
    m.output("y");
    add(node_case("size past int64", m, "Size", "input 0 'data' (value 'c', f32[4294967296, 4294967296]) has more"));
  }
  {
    Model m;
    m.input("x", {}).ints("i", {0}, {}).node("Gather", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather of a scalar", m, "Gather", "input 0 'data' (value 'x', f32[]) is a scalar"));
  }
  {
    Model m;
    m.x().ints("i", {2}, {}).node("Gather", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather index out of range", m, "Gather", "input 1 'indices' (value 'i') holds the index 2"));
  }

  // ---- DepthToSpace, SpaceToDepth (ops_shape.cpp) ----
  auto blocks = [](Model m, const std::string& op, int64_t block) {
    m.node(op, {"x"}, {"y"});
    attr(t_node(m), "blocksize", block);
    m.output("y");
    return m;
  };
  add(node_case("block size 0", blocks(Model().x(), "DepthToSpace", 0), "DepthToSpace",
                "attribute 'blocksize' is 0; expected a block size in [1, 2147483648]"));
  {
    Model m;
    m.input("x", {"2", "8", "4"});
    add(node_case("block move of rank 3", blocks(m, "SpaceToDepth", 2), "SpaceToDepth",
                  "input 0 'input' (value 'x', f32[2, 8, 4]) has rank 3; expected rank 4"));
  }
  {
    Model m;
    m.input("x", {"n", "8", "h", "4"});
    add(node_case("block move of two symbolic sizes", blocks(m, "DepthToSpace", 2), "DepthToSpace",
                  "input 0 'input' (value 'x', f32[n, 8, h, 4]) has 2 sizes that are not static"));
  }
  {
    Model m = blocks(Model().x(), "DepthToSpace", 1);
    attr(t_node(m), "mode", "RCD");
    add(node_case("depth to space mode", m, "DepthToSpace", "attribute 'mode' is 'RCD'; expected DCR or CRD"));
  }
  add(node_case("depth to space channels", blocks(Model().x(), "DepthToSpace", 2), "DepthToSpace",
                "input 0 'input' (value 'x', f32[1, 2, 4, 4]) has 2 channels; expected a multiple of 4"));
  {
    Model m;
    m.input("x", {"1", "2", "4", "5"});
    add(node_case("space to depth spatial size", blocks(m, "SpaceToDepth", 2), "SpaceToDepth",
                  "has the spatial size 5 in dim 3; expected a multiple of attribute 'blocksize', 2"));
  }
  // ---- Einsum (ops_einsum.cpp) ----
  auto einsum = [](Model m, const std::vector<std::string>& ins, const char* equation) {
    m.node("Einsum", ins, {"y"});
    attr(t_node(m), "equation", equation);
    m.output("y");
    return m;
  };
  {
    Model m;
    m.input("x", {"3"}, TensorProto::UINT8);
    add(node_case("einsum of u8", einsum(m, {"x"}, "i->i"), "Einsum",
                  "input 0 'Inputs' (value 'x', u8[3]) is of type u8; expected f32, f16, f64, i64 or i32"));
  }
  add(node_case("einsum term too short", einsum(Model().x(), {"x"}, "ij->ij"), "Einsum",
                "attribute 'equation' 'ij->ij' gives input 0 of rank 4 the term 'ij' of 2 labels"));
  {
    Model m;
    m.input("a", {"3", "4"}).input("b", {"5", "6"});
    add(node_case("einsum sizes disagree", einsum(m, {"a", "b"}, "ij,jk->ik"), "Einsum",
                  "attribute 'equation' 'ij,jk->ik' gives label 'j' the sizes 4 and 5"));
  }
  {
    Model m;
    m.input("x", {"n", "n"});
    add(node_case("einsum diagonal of a symbolic size", einsum(m, {"x"}, "ii->i"), "Einsum",
                  "attribute 'equation' 'ii->i' takes a diagonal, which needs the size of label 'i', n, to be static"));
  }
}

}  // namespace edgec::refusal_cases
