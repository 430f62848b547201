// Refusal cases of the model, its graph inputs and dims, the schema and SSA checks,
// values the importer does not compute (importer.cpp, context.cpp,
// node_context.cpp, input_dims.cpp), sequences (ops_sequence.cpp) and
// control flow (ops_control.cpp): one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

void add_importer_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // ---- the model and its graph inputs (importer.cpp) ----
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    auto* s = m.g()->add_sparse_initializer();
    s->mutable_values()->set_name("s");
    add(graph_case("sparse initializer", m, {"sparse initializer 's'"}));
  }
  {
    Model m;
    m.x().floats("w", {1}).floats("w", {2}).node("Add", {"x", "w"}, {"y"});
    m.output("y");
    add(graph_case("initializer twice", m, {"initializer 'w' appears twice"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"a"});
    m.node("Relu", {"a"}, {"b"});
    m.node("Relu", {"b"}, {"y"});
    m.output("y");
    Case k = graph_case("more nodes than the memory limit holds", m,
                        {"the graph has 3 nodes; compiling it takes at least 3840 bytes (1.25 KiB a node), more "
                         "than the memory limit of 2048 bytes (set EDGEC_MEMORY_LIMIT to change it)"});
    k.run = [run = k.run] {
      const ScopedMemoryLimit limit("2048");
      run();
    };
    add(std::move(k));
  }
  {
    Model m;
    m.proto.clear_ir_version();
    add(graph_case("no ir_version", m, {"no ir_version"}));
  }
  {
    Model m;
    m.proto.set_ir_version(12);
    add(graph_case("ir_version 12", m, {"ONNX IR version 12"}));
  }
  {
    Model m;
    m.proto.clear_graph();
    add(graph_case("no graph", m, {"no graph"}));
  }
  {
    Model m;
    m.g()->add_input()->set_name("x");
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input not a tensor", m, {"graph input 'x' is not a tensor"}));
  }
  {
    Model m;
    m.input("x", {"2"}, TensorProto::COMPLEX64).node("Abs", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of type complex64", m, {"graph input 'x' has element type complex64"}));
  }
  {
    Model m;
    m.input("x", {"2"});
    m.g()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input without a shape", m, {"graph input 'x' has no shape"}));
  }
  {
    Model m;
    m.input("x", std::vector<std::string>(9, "1")).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of rank 9", m, {"graph input 'x' has rank 9"}));
  }
  {
    Model m;
    m.input("x", {"-3"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of negative size", m, {"graph input 'x' has a negative size in dim 0"}));
  }
  {
    Model m;
    m.input("x", {"n"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    OnnxImportOptions o;
    o.dim_sizes["n"] = -1;
    add(graph_case("negative --dim", m, {"--dim (dim_sizes) gives 'n' the negative size -1"}, o));
  }
  {
    Model m;
    m.input("x", {"1099511627776", "1099511627776"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input bytes overflow", m, {"graph input 'x' declares", "overflows 64 bits"}));
  }
  {
    Model m;
    m.x().x().node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input listed twice", m, {"graph input 'x' is listed twice"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    OnnxImportOptions o;
    o.input_values["x"] =
        TensorData{TensorType::of(DType::Float32, {3}), std::make_shared<std::vector<std::byte>>(12, std::byte{0})};
    add(graph_case("fixed value of another type", m, {"graph input 'x' (--fix-inputs) is f32[3]"}, o));
    OnnxImportOptions typo;
    typo.input_values["y"] = o.input_values["x"];
    add(graph_case("fixed value for no input", m, {"--fix-inputs gives a value for 'y'"}, typo));
    OnnxImportOptions dim;
    dim.dim_sizes["batch"] = 2;
    add(graph_case("--dim for no dim", m, {"--dim (dim_sizes) names 'batch'"}, dim));
  }

  // ---- the schema and SSA checks (importer.cpp) ----
  {
    Model m;
    m.x().node("Relu", {"x"}, {"x"});
    m.output("x");
    add(node_case("output named as a graph input", m, "Relu", "output 0 'Y' (value 'x')"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"}, "/first");
    m.node("Neg", {"x"}, {"y"});
    m.output("y");
    add(node_case("output of two nodes", m, "Neg", "output 0 'Y' (value 'y')"));
  }
  {
    Model m;
    m.x().node("Split", {"x"}, {"y", "y"});
    m.output("y");
    add(node_case("output twice in one node", m, "Split", "output 1 'outputs' (value 'y')"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"})->set_domain("com.example");
    m.output("y");
    auto* o = m.proto.add_opset_import();
    o->set_domain("com.example");
    o->set_version(1);
    c.push_back(graph_case("custom domain", m, {"node '/t' (#0, Relu, domain com.example, opset 1)", "domain"}));
  }
  {
    Model m(0);
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    add(node_case("opset 0", m, "Relu", "opset 0 of the default domain", 0));
  }
  {
    // ONNX's converter cannot bring an opset-6 Gemm whose C does not
    // broadcast to the product to opset 7, where Gemm's meaning changed.
    Model m(6);
    m.input("x", {"2", "3"}).weight("b", {3, 4}).weight("c", {5});
    attr(m.node("Gemm", {"x", "b", "c"}, {"y"}), "broadcast", int64_t{1});
    m.output("y");
    add(node_case("old opset the converter cannot convert", m, "Gemm", "could not bring the model from opset 6 to 13 (",
                  6));
  }
  {
    Model m(11);
    m.x().node("NoSuchOperator", {"x"}, {"y"});
    m.output("y");
    add(node_case("old opset, no such operator", m, "NoSuchOperator", "is not an ONNX operator of opset 11", 11));
  }
  {
    Model m;
    m.x().node("StringNormalizer", {"x"}, {"y"});
    m.output("y");
    add(node_case("unsupported operator", m, "StringNormalizer", "operator StringNormalizer is not supported"));
  }
  {
    Model m;
    m.x().node("Relu", {"x", "x"}, {"y"});
    m.output("y");
    add(node_case("too many inputs", m, "Relu", "its inputs are 'X'"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y", "z"});
    m.output("y");
    add(node_case("too many outputs", m, "Relu", "its outputs are 'Y'"));
  }
  {
    Model m;
    m.x().node("Add", {"x", ""}, {"y"});
    m.output("y");
    add(node_case("required input empty", m, "Add", "input 1 'B' is required"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {""});
    m.output("x");
    add(node_case("required output empty", m, "Relu", "output 0 'Y' is required"));
  }
  {
    Model m;
    m.x();
    auto* n = m.node("Softmax", {"x"}, {"y"});
    attr(n, "axis", int64_t{1});
    attr(n, "axis", int64_t{2});
    m.output("y");
    add(node_case("attribute twice", m, "Softmax", "attribute 'axis' is given twice"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Relu", {"x"}, {"y"}), "alpha", 0.5f);
    m.output("y");
    add(node_case("unknown attribute", m, "Relu", "attribute 'alpha' is not an attribute of Relu"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Softmax", {"x"}, {"y"}), "axis", 1.0f);
    m.output("y");
    add(node_case("attribute of another kind", m, "Softmax", "attribute 'axis' is a float; expected an int"));
  }
  {
    Model m;
    m.x().node("MaxPool", {"x"}, {"y"});
    m.output("y");
    add(node_case("required attribute missing", m, "MaxPool", "attribute 'kernel_shape' (a list of ints) is required"));
  }
  {
    Model m;
    m.x().floats("s", {1, 2}).node("Reshape", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("input type not allowed", m, "Reshape",
                  "input 1 'shape' (value 's', f32[2]) has element type float"));
  }
  {
    Model m;
    m.x().ints("b", {1}).node("Add", {"x", "b"}, {"y"});
    m.output("y");
    add(node_case("type variable of two types", m, "Add", "input 1 'B' (value 'b', i64[1]) has element type int64"));
  }
  {
    Model m;
    m.x().node("Add", {"x", "b"}, {"a"});
    m.node("Relu", {"a"}, {"b"}, "/later");
    m.output("b");
    add(node_case("a cycle", m, "Add",
                  "input 1 'B' (value 'b') is produced by node '/later' (#1), which reads this node's outputs; the "
                  "graph has a cycle: node '/t' (#0) -> 'a' -> node '/later' (#1) -> 'b' -> node '/t' (#0)"));
  }
  {
    Model m;
    m.x().node("Add", {"x", "nowhere"}, {"y"});
    m.output("y");
    add(node_case("input not defined", m, "Add", "input 1 'B' (value 'nowhere') is not defined"));
  }
  {
    Model m;
    m.input("a", {"2", "3"}).input("b", {"4", "5"}).node("MatMul", {"a", "b"}, {"y"});
    m.output("y");
    add(node_case("refused by the operator table", m, "MatMul", "[matmul]"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("z");
    add(graph_case("graph output not produced", m, {"graph output 'z' is not produced"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    add(graph_case("no graph outputs", m, {"the graph has no outputs"}));
  }
  add(Case{"file over 2 GiB",
           [] {
             std::string path = ::testing::TempDir() + "/edgec_refusal_XXXXXX.onnx";
             const int fd = mkstemps(path.data(), 5);
             ASSERT_GE(fd, 0);
             ASSERT_EQ(ftruncate(fd, (off_t{1} << 31) + 1), 0);
             close(fd);
             struct Remove {
               std::string p;
               ~Remove() { fs::remove(p); }
             } remove{path};
             import_onnx(path);
           },
           {"the file has 2147483649 bytes"}});
  add(Case{
      "bytes that do not parse", [] { import_bytes("\xff\xff\xff\xff not a model"); }, {"not a valid ONNX model"}});
  add(Case{"file that does not parse",
           [] {
             const std::string path = ::testing::TempDir() + "/edgec_refusal_junk.onnx";
             std::ofstream(path, std::ios::binary) << "\xff\xff\xff\xff not a model";
             struct Remove {
               std::string p;
               ~Remove() { fs::remove(p); }
             } remove{path};
             import_onnx(path);
           },
           {"edgec_refusal_junk.onnx: not a valid ONNX model"}});

  // ---- values the importer does not compute (context.cpp, node_context.cpp) ----
  {
    Model m;
    m.x().weight("s", {2}).weight("b", {2}).weight("mu", {2}).weight("var", {2});
    m.node("BatchNormalization", {"x", "s", "b", "mu", "var"}, {"y", "i"});
    m.output("i");
    add(graph_case("uncomputed output as graph output", m,
                   {"graph output 'i'", "'i' (output 1 of BatchNormalization node '/t') is not computed"}));
  }
  {
    Model m;
    m.x().weight("s", {2}).weight("b", {2}).weight("mu", {2}).weight("var", {2});
    m.node("BatchNormalization", {"x", "s", "b", "mu", "var"}, {"y", "i"}, "/norm");
    m.node("Neg", {"i"}, {"z"});
    m.output("z");
    add(node_case("uncomputed output read", m, "Neg", "'i' (output 1 of BatchNormalization node '/norm')"));
  }
  {
    Model m;
    m.input("x", {"n", "2"}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Tile", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("symbolic repeats", m, "Tile", "the repeats, input 1 'repeats' (value 's'),"));
  }
  {
    Model m;
    m.x().input("r", {"4"}, TensorProto::INT64).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("repeats from a graph input", m, "Tile", "input 1 'repeats' (value 'r')"));
  }
  {
    Model m;
    m.x().ints("k", {1, 2}).node("TopK", {"x", "k"}, {"v", "i"});
    m.output("v");
    add(node_case("K of two values", m, "TopK", "K, input 1 'K' (value 'k'), must hold one value"));
  }

  // ---- graph input dims from the options (input_dims.cpp) ----
  {
    auto relu = [](const std::vector<std::string>& dims) {
      Model m;
      m.input("x", dims).node("Relu", {"x"}, {"y"});
      m.output("y");
      return m;
    };
    auto shapes = [](std::vector<int64_t> dims, bool max = false, const std::string& input = "x") {
      OnnxImportOptions o;
      (max ? o.input_max_shapes : o.input_shapes)[input] = std::move(dims);
      return o;
    };
    add(graph_case("--shape of no input", relu({"1", "2"}), {"--shape nope=1 (input_shapes) names 'nope'", "'x'"},
                   shapes({1}, false, "nope")));
    add(graph_case("--shape rank", relu({"1", "2"}), {"--shape x=1 gives 1 dims; graph input 'x' has rank 2"},
                   shapes({1})));
    add(graph_case("--shape negative", relu({"1", "?"}), {"dim 1 of graph input 'x' the negative size -3"},
                   shapes({1, -3})));
    add(graph_case("--shape against the model", relu({"1", "2"}),
                   {"--shape x=1x5 gives dim 1 of graph input 'x' the size 5, but the model fixes it to 2"},
                   shapes({1, 5})));
    add(graph_case("--max-shape below the model", relu({"1", "2"}),
                   {"--max-shape x=1x1 gives dim 1 of graph input 'x' the bound 1, but the model fixes it to 2"},
                   shapes({1, 1}, true)));
    add(graph_case("--shape of a named dim twice", relu({"n", "n"}),
                   {"dim 1 of graph input 'x' ('n') the size 2, but --shape x=1x2 gives it 1"}, shapes({1, 2})));
  }

  // ---- sequences (importer.cpp, context.cpp, ops_sequence.cpp) ----
  {
    Model m;
    auto* in = m.g()->add_input();
    in->set_name("s");
    in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::FLOAT);
    m.output("s");
    add(graph_case("sequence graph input", m, {"graph input 's' is a sequence; edgec's programs take tensors only"}));
  }
  {
    Model m;
    m.x().node("SequenceConstruct", {"x"}, {"s"});
    m.output("s");
    add(graph_case("sequence graph output", m,
                   {"graph output 's': ", "'s' is a sequence (of 1 f32 tensors)", "cannot be a graph output"}));
  }
  // A sequence {x: f32[1, 2, 4, 4]} (node '/a') read by node '/t'.
  auto of_x = [](Model m, const std::string& op, std::vector<std::string> more) {
    m.node("SequenceConstruct", {"x"}, {"s"}, "/a");
    more.insert(more.begin(), "s");
    m.node(op, more, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m;
    m.input("x", {"7"}).input("splits", {"3"}, TensorProto::INT64).ints("zero", {0}, {});
    m.node("SplitToSequence", {"x", "splits"}, {"s"}, "/a");
    m.node("SequenceAt", {"s", "zero"}, {"y"});
    m.output("y");
    add(node_case("sequence split at run time read", m, "SequenceAt",
                  "the elements of input 0 'input_sequence' (value 's', a sequence of 3 f32 tensors) are not known: "
                  "they are split by the sizes input 1 'split' (value 'splits'), which are computed at run time from "
                  "graph input 'splits'"));
  }
  add(node_case("sequence position of two values", of_x(Model().x().ints("p", {0, 0}), "SequenceAt", {"p"}),
                "SequenceAt", "input 1 'position' (value 'p', i64[2]) is not a scalar"));
  add(node_case("sequence position out of range", of_x(Model().x().ints("p", {1}, {}), "SequenceAt", {"p"}),
                "SequenceAt", "input 1 'position' (value 'p') is 1; expected a position in [-1, 0]"));
  {
    Model m;
    m.input("pos", {}, TensorProto::INT64).node("SequenceEmpty", {}, {"s"}, "/a");
    m.node("SequenceAt", {"s", "pos"}, {"y"});
    m.output("y");
    add(node_case("sequence empty at a run-time position", m, "SequenceAt",
                  "input 0 'input_sequence' (value 's', a sequence of 0 f32 tensors) is empty, so no position"));
  }
  {
    Model m;
    m.x().input("z", {"3"}).input("pos", {}, TensorProto::INT64);
    m.node("SequenceConstruct", {"x", "z"}, {"s"}, "/a");
    m.node("SequenceAt", {"s", "pos"}, {"y"});
    m.output("y");
    add(node_case("sequence of ranks at a run-time position", m, "SequenceAt",
                  "the position, input 1 'position' (value 'pos'), must be known at import time (the elements differ "
                  "in rank: element 0 is f32[1, 2, 4, 4], element 1 f32[3], so the result's rank would depend on the "
                  "position), but it is computed at run time from graph input 'pos'; fix it at compile time (edgec "
                  "compile --fix-inputs"));
  }
  {
    Model m;
    m.node("SequenceEmpty", {}, {"y"});
    attr(t_node(m), "dtype", int64_t{TensorProto::COMPLEX64});
    m.output("y");
    add(node_case("sequence of complex64", m, "SequenceEmpty", "attribute 'dtype' is complex64"));
  }
  {
    Model m;
    m.input("i", {"2"}, TensorProto::INT64).node("SequenceEmpty", {}, {"s"}, "/a");
    m.node("SequenceInsert", {"s", "i"}, {"y"});
    m.output("y");
    add(node_case("sequence insert of another type", m, "SequenceInsert",
                  "input 1 'tensor' (value 'i', i64[2]) has another element type than input 0 'input_sequence' "
                  "(value 's', a sequence of 0 f32 tensors), whose elements are f32"));
  }
  auto split_seq = [](Model m, std::vector<std::string> ins) {
    m.node("SplitToSequence", ins, {"s"});
    m.node("SequenceLength", {"s"}, {"y"}, "/b");
    m.output("y");
    return m;
  };
  {
    Model m = split_seq(Model().x(), {"x"});
    attr(t_node(m), "axis", int64_t{4});
    add(node_case("split to sequence axis", m, "SplitToSequence", "attribute 'axis' is 4; expected an axis in [-4, 3]"));
  }
  {
    Model m;
    m.x().input("k", {"n"}, TensorProto::INT64);
    add(node_case("split to sequence of a symbolic count", split_seq(m, {"x", "k"}), "SplitToSequence",
                  "the split sizes, input 1 'split' (value 'k'), must be known at import time (their number"));
  }
  {
    Model m;
    m.input("x", {"n"});
    add(node_case("split to sequence of a symbolic dim", split_seq(m, {"x"}), "SplitToSequence",
                  "cannot split the symbolic dim n of input 0 'input' (value 'x', f32[n])"));
  }
  add(node_case("split to sequence size 0", split_seq(Model().x().ints("z", {0}, {}), {"x", "z"}), "SplitToSequence",
                "the split size, input 1 'split' (value 'z'), is 0; expected >= 1"));
  add(node_case("split to sequence negative size", split_seq(Model().x().ints("z", {-1, 2}), {"x", "z"}),
                "SplitToSequence", "the split sizes, input 1 'split' (value 'z'), are [-1, 2]; expected sizes >= 0"));
  add(node_case("split to sequence sum", split_seq(Model().x().ints("z", {1, 1}), {"x", "z"}), "SplitToSequence",
                "are [1, 1], summing to 2; expected them to sum to dim 0 of input 0 'input'"));
  {
    Model m;
    m.node("SequenceEmpty", {}, {"s"}, "/a");
    m.node("ConcatFromSequence", {"s"}, {"y"});
    attr(t_node(m), "axis", int64_t{0});
    m.output("y");
    add(node_case("concat from an empty sequence", m, "ConcatFromSequence",
                  "input 0 'input_sequence' (value 's', a sequence of 0 f32 tensors) is empty"));
  }
  {
    Model m = of_x(Model().x(), "ConcatFromSequence", {});
    attr(t_node(m), "axis", int64_t{5});
    attr(t_node(m), "new_axis", int64_t{1});
    add(node_case("concat from sequence axis", m, "ConcatFromSequence",
                  "attribute 'axis' is 5; expected an axis in [-5, 4] for elements of f32[1, 2, 4, 4] stacked"));
  }
  // ---- control flow (ops_control.cpp, importer.cpp's subgraphs) ----
  // Node '/t': If(cond) with then_branch `then_g` (y = x + 1 by default)
  // and else_branch y = x * 2; cond a bool scalar initializer `c`.
  auto if_of = [](Model m, const std::function<void(onnx::GraphProto&)>& edit_then, bool constant_cond = true) {
    if (constant_cond) m.ints("cond", {1}, {}, TensorProto::BOOL);
    onnx::GraphProto then_g, else_g;
    then_g.set_name("then");
    add_node(&then_g, "then_add", "Add", {"x", "x"}, {"t_out"});
    then_g.add_output()->set_name("t_out");
    else_g.set_name("else");
    add_node(&else_g, "else_mul", "Mul", {"x", "x"}, {"e_out"});
    else_g.add_output()->set_name("e_out");
    edit_then(then_g);
    auto* n = m.node("If", {"cond"}, {"y"});
    set_graph_attr(n, "then_branch", then_g);
    set_graph_attr(n, "else_branch", else_g);
    m.output("y");
    return m;
  };
  {
    Model m;
    m.x().input("flag", {}, TensorProto::BOOL);
    m.node("Identity", {"flag"}, {"cond"}, "/a");
    // A run-time condition imports both branches as regions; what they
    // must agree on is refused naming the branch.
    add(node_case("if at run time, a branch with inputs", if_of(m, [](onnx::GraphProto& g) { add_input(&g, "extra", {1}); }, false),
                  "If", "attribute 'then_branch' has 1 inputs; expected none"));
    add(node_case("if at run time, a branch output count", if_of(m, [](onnx::GraphProto& g) {
                    g.add_output()->set_name("t_out");
                  }, false),
                  "If", "attribute 'then_branch' has 2 outputs; expected 1, one per output of the node"));
    add(node_case("if at run time, a branch output undefined", if_of(m, [](onnx::GraphProto& g) {
                    g.mutable_output(0)->set_name("nowhere");
                  }, false),
                  "If", "then_branch output 0 'nowhere' is not produced by any node or initializer of it"));
    add(node_case("if at run time, branches of two dtypes", if_of(m, [](onnx::GraphProto& g) {
                    set_int_attr(add_node(&g, "to_int", "Cast", {"t_out"}, {"t_int"}), "to", TensorProto::INT64);
                    g.mutable_output(0)->set_name("t_int");
                  }, false),
                  "If", "the branches give i64[1, 2, 4, 4] and f32[1, 2, 4, 4]; expected one dtype and rank"));
    add(node_case("if at run time, a branch returning a sequence", if_of(m, [](onnx::GraphProto& g) {
                    add_node(&g, "to_seq", "SequenceConstruct", {"t_out"}, {"t_seq"});
                    g.mutable_output(0)->set_name("t_seq");
                  }, false),
                  "If", "then_branch output 0 't_seq' is a sequence (of 1 f32 tensors), and the If runs at run "
                        "time because its condition"));
  }
  {
    Model m;
    m.x().input("flags", {"2"}, TensorProto::BOOL);
    m.node("Identity", {"flags"}, {"cond"}, "/a");
    add(node_case("if at run time on two values", if_of(m, [](onnx::GraphProto&) {}, false), "If",
                  "is bool[2]; expected one bool"));
  }
  {
    // A voice model's If on its input's length, whose dims the model
    // neither sizes nor names: the branches differ in rank, and the
    // message says which flag makes the condition known (--shape, with the
    // input's rank); onnx_unnamed_dims_test.cpp compiles it with the flag.
    Model m;
    m.input("input", {"?", "?"}).ints("one", {1}, {}).ints("n512", {512}, {});
    m.node("Shape", {"input"}, {"s"}, "/shape");
    m.node("Gather", {"s", "one"}, {"len"}, "/gather");
    m.node("Equal", {"len", "n512"}, {"cond"}, "/eq");
    m.ints("axes", {2});
    onnx::GraphProto then_g, else_g;
    then_g.set_name("then");
    add_node(&then_g, "then_unsqueeze", "Unsqueeze", {"input", "axes"}, {"t_out"});
    then_g.add_output()->set_name("t_out");
    else_g.set_name("else");
    add_node(&else_g, "else_identity", "Identity", {"input"}, {"e_out"});
    else_g.add_output()->set_name("e_out");
    auto* n = m.node("If", {"cond"}, {"y"});
    set_graph_attr(n, "then_branch", then_g);
    set_graph_attr(n, "else_branch", else_g);
    m.output("y");
    add(node_case("if on an unnamed dim: --shape", m, "If",
                  "the branches give f32[input_dim0, input_dim1, 1] and f32[input_dim0, input_dim1]; expected one "
                  "dtype and rank (a result of either branch has one type); edgec imports only the branch taken "
                  "where the condition, input 0 'cond', is known at compile time, but it is computed at run time "
                  "from the dims of graph input 'input' that the model neither sizes nor names (input_dim0, "
                  "input_dim1); fix it at compile time (edgec compile --shape input=SIZExSIZE)"));
  }
  {
    Model m = Model().x().ints("c2", {1, 0}, {2}, TensorProto::BOOL);
    m.node("If", {"c2"}, {"y"});
    // Minimal branches: the condition is refused before either is read.
    auto* n = t_node(m);
    for (const char* name : {"then_branch", "else_branch"}) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(AttributeProto::GRAPH);
      a->mutable_g()->set_name(name);
      a->mutable_g()->add_output()->set_name("x");
    }
    m.output("y");
    add(node_case("if of two conditions", m, "If", "the condition, input 0 'cond' (value 'c2', bool[2]), holds 2 "
                                                   "values; expected one"));
  }
  add(node_case("if branch with inputs", if_of(Model().x(), [](onnx::GraphProto& g) {
                  add_input(&g, "extra", {1});
                }),
                "If", "attribute 'then_branch' (the branch the condition takes) has 1 inputs; expected none"));
  add(node_case("if branch output count", if_of(Model().x(), [](onnx::GraphProto& g) {
                  g.add_output()->set_name("x");
                }),
                "If", "attribute 'then_branch' (the branch the condition takes) has 2 outputs; expected 1"));
  add(node_case("if branch output undefined", if_of(Model().x(), [](onnx::GraphProto& g) {
                  g.mutable_output(0)->set_name("nowhere");
                }),
                "If", "then_branch output 0 'nowhere' is not produced by any node or initializer of the branch"));
  add(node_case("if branch output unavailable",
                if_of(Model().x().weight("s", {2}).weight("b", {2}).weight("mu", {2}).weight("var", {2}),
                      [](onnx::GraphProto& g) {
                        g.clear_node();
                        add_node(&g, "norm", "BatchNormalization", {"x", "s", "b", "mu", "var"}, {"normed", "mean"});
                        g.mutable_output(0)->set_name("mean");
                      }),
                "If", "then_branch output 0 'mean': "));
  add(node_case("if branch sparse initializer", if_of(Model().x(), [](onnx::GraphProto& g) {
                  g.add_sparse_initializer()->mutable_values()->set_name("sp");
                }),
                "If", "then_branch: sparse initializer 'sp' is not supported"));
  add(node_case("if branch initializer twice", if_of(Model().x(), [](onnx::GraphProto& g) {
                  for (int i = 0; i < 2; ++i) {
                    auto* t = g.add_initializer();
                    t->set_name("w");
                    t->set_data_type(TensorProto::FLOAT);
                    t->add_float_data(1);
                  }
                }),
                "If", "then_branch: initializer 'w' appears twice"));
  add(node_case("if branch initializer of an enclosing name", if_of(Model().x(), [](onnx::GraphProto& g) {
                  auto* t = g.add_initializer();
                  t->set_name("x");
                  t->set_data_type(TensorProto::FLOAT);
                  t->add_float_data(1);
                }),
                "If", "then_branch: initializer 'x' has the name of a value of the enclosing graph"));
  add(node_case("if branch output of an enclosing name", if_of(Model().x(), [](onnx::GraphProto& g) {
                  g.mutable_node(0)->set_output(0, "cond");
                  g.mutable_output(0)->set_name("cond");
                }),
                "If", "then_branch: node 'then_add' (#0, Add, domain ai.onnx, opset 17): output 'cond' has the name "
                      "of a value of the enclosing graph"));
  // Node '/t': Loop(trips, cond, x) whose body (i, c, v) -> (c, v_out, v_out)
  // passes v through; trips and cond are initializers unless `edit` changes
  // the model, and `edit_body` the body.
  auto loop_of = [](int64_t trips, const std::function<void(Model&, onnx::GraphProto&)>& edit,
                    std::vector<std::string> outs = {"y", "scan"}) {
    Model m = Model().x();
    m.ints("trips", {trips}, {}).ints("go", {1}, {}, TensorProto::BOOL);
    onnx::GraphProto body;
    body.set_name("body");
    add_input(&body, "i", {}, TensorProto::INT64);
    add_input(&body, "c", {}, TensorProto::BOOL);
    add_input(&body, "v", {1, 2, 4, 4});
    add_node(&body, "pass", "Identity", {"v"}, {"v_out"});
    for (const char* o : {"c", "v_out", "v_out"}) body.add_output()->set_name(o);
    edit(m, body);
    set_graph_attr(m.node("Loop", {m.g()->initializer_size() ? "trips" : "", "go", "x"}, outs), "body", body);
    for (const auto& o : outs) m.output(o);
    return m;
  };
  add(node_case("loop at run time whose carried value changes type", loop_of(2, [](Model& m, onnx::GraphProto& b) {
                  m.g()->mutable_initializer()->DeleteSubrange(0, 1);
                  m.input("trips", {}, TensorProto::INT64);
                  b.mutable_node(0)->set_op_type("ReduceSum");
                  b.mutable_output()->RemoveLast();
                }, {"y"}),
                "Loop", "carried value 0 enters the body as f32[1, 2, 4, 4] and leaves it as f32[1, 1, 1, 1]"));
  add(node_case("loop trip count of two values", loop_of(2, [](Model& m, onnx::GraphProto&) {
                  m.g()->mutable_initializer(0)->add_dims(2);
                  m.g()->mutable_initializer(0)->add_int64_data(3);
                }),
                "Loop", "the trip count, input 0 'M' (value 'trips', i64[2]), holds 2 values; expected one"));
  add(node_case("loop body inputs", loop_of(2, [](Model&, onnx::GraphProto& b) { b.mutable_input()->RemoveLast(); }),
                "Loop", "attribute 'body' has 2 inputs; expected 3"));
  add(node_case("loop body outputs", loop_of(2, [](Model&, onnx::GraphProto& b) {
                  b.mutable_output()->RemoveLast();
                  b.mutable_output()->RemoveLast();
                }),
                "Loop", "attribute 'body' has 1 outputs; expected at least 2"));
  add(node_case("loop node outputs", loop_of(2, [](Model&, onnx::GraphProto&) {}, {"y"}), "Loop",
                "the node has 1 outputs; expected 2 (the carried values and the body's scan outputs)"));
  add(node_case("loop body output undefined", loop_of(2, [](Model&, onnx::GraphProto& b) {
                  b.mutable_output(1)->set_name("nowhere");
                }),
                "Loop", "body output 1 'nowhere' is not produced by any node or initializer of the body"));
  add(node_case("loop body output unavailable", loop_of(2, [](Model& m, onnx::GraphProto& b) {
                  m.weight("s", {2}).weight("b", {2}).weight("mu", {2}).weight("var", {2});
                  add_node(&b, "norm", "BatchNormalization", {"v", "s", "b", "mu", "var"}, {"normed", "mean"});
                  b.mutable_output(1)->set_name("mean");
                }),
                "Loop", "body output 1 'mean@loop0': "));
  add(node_case("loop scan of no iteration", loop_of(0, [](Model&, onnx::GraphProto&) {}), "Loop",
                "scan output 0 of a Loop that runs no iteration has no element to give it a shape"));
  // A run-time trip count and no --max-dim for the scan output's rows: the
  // output is refused where it is read (a graph output, or a node).
  const auto run_time_trips = [](Model& m, onnx::GraphProto&) {
    m.g()->mutable_initializer()->DeleteSubrange(0, 1);
    m.input("trips", {}, TensorProto::INT64);
  };
  add(graph_case("loop scan rows unbounded, as graph output", loop_of(2, run_time_trips),
                 {"graph output 'scan': 'scan' (scan output 0 of the Loop '/t') has no bound on its rows",
                  "its trip count, input 0 'M' (value 'trips'), is computed at run time from graph input 'trips'",
                  "--max-dim t_rows=MAX"}));
  {
    Model m = loop_of(2, run_time_trips, {"y", "scan"});
    m.g()->mutable_output()->RemoveLast();
    m.node("Neg", {"scan"}, {"z"}, "/neg");
    m.output("z");
    add(graph_case("loop scan rows unbounded, read", m,
                   {"node '/neg' (#", "'scan' (scan output 0 of the Loop '/t') has no bound on its rows"}));
  }
  {
    Model m = Model().x();
    m.input("trips", {}, TensorProto::INT64).ints("go", {1}, {}, TensorProto::BOOL);
    m.node("SequenceConstruct", {"x"}, {"s0"}, "/seq");
    onnx::GraphProto body;
    body.set_name("body");
    add_input(&body, "i", {}, TensorProto::INT64);
    add_input(&body, "c", {}, TensorProto::BOOL);
    body.add_input()->set_name("s");
    add_node(&body, "append", "SequenceInsert", {"s", "x"}, {"s_out"});
    body.add_output()->set_name("c");
    body.add_output()->set_name("s_out");
    set_graph_attr(m.node("Loop", {"trips", "go", "s0"}, {"s_end"}), "body", body);
    attr(m.node("ConcatFromSequence", {"s_end"}, {"y"}, "/cat"), "axis", int64_t{0});
    m.output("y");
    add(node_case("loop at run time carrying a sequence", m, "Loop",
                  "carried value 0, input 2 'v_initial' (value 's0'), is a sequence (of 1 f32 tensors), and the Loop "
                  "runs at run time because its trip count"));
  }
  // Node '/t': Scan(init f32[2], xs f32[3, 2]) with body (s, e) -> (s + e,
  // s + e): a running sum and its scan output. At opset 8 the inputs have a
  // batch dim first and input 0 is sequence_lens. `edit` changes the model
  // (after the inputs, before the node), `edit_body` the body, `edit_node`
  // the node.
  auto scan_of = [](int64_t opset, const std::function<void(Model&)>& edit,
                    const std::function<void(onnx::GraphProto&)>& edit_body,
                    const std::function<void(onnx::NodeProto*)>& edit_node) {
    Model m(opset);
    const bool batched = opset < 9;
    m.input("init", batched ? std::vector<std::string>{"1", "2"} : std::vector<std::string>{"2"});
    m.input("xs", batched ? std::vector<std::string>{"1", "3", "2"} : std::vector<std::string>{"3", "2"});
    edit(m);
    onnx::GraphProto body;
    body.set_name("body");
    add_input(&body, "s", {2});
    add_input(&body, "e", {2});
    add_node(&body, "sum", "Add", {"s", "e"}, {"s_out"});
    add_node(&body, "seen", "Identity", {"s_out"}, {"y_out"});
    body.add_output()->set_name("s_out");
    body.add_output()->set_name("y_out");
    edit_body(body);
    std::vector<std::string> ins = {"init", "xs"};
    if (batched) ins.insert(ins.begin(), m.g()->initializer_size() ? "lens" : "");
    auto* n = m.node("Scan", ins, {"final", "ys"});
    set_graph_attr(n, "body", body);
    attr(n, "num_scan_inputs", int64_t{1});
    edit_node(n);
    m.output("final").output("ys");
    return m;
  };
  const auto none = [](auto&) {};
  const auto no_node = [](onnx::NodeProto*) {};
  add(node_case("scan output axis", scan_of(17, none, none, [](onnx::NodeProto* n) {
                  attr(n, "scan_output_axes", std::vector<int64_t>{5});
                }),
                "Scan", "attribute 'scan_output_axes' gives scan output 0 the axis 5; expected an axis of its rank 2"));
  add(node_case("scan of opset 8 with a body whose meaning changed", scan_of(8, none, [](onnx::GraphProto& b) {
                  add_node(&b, "soft", "Softmax", {"s_out"}, {"y2"});
                  b.mutable_output(1)->set_name("y2");
                }, no_node),
                "Scan", "its body's node 'soft' (Softmax) is of opset 8", 8));
  add(node_case("scan input count", scan_of(17, none, none, [](onnx::NodeProto* n) {
                  n->mutable_attribute(1)->set_i(3);
                }),
                "Scan", "attribute 'num_scan_inputs' is 3; expected 1 to 2"));
  add(node_case("scan body inputs", scan_of(17, none, [](onnx::GraphProto& b) { b.mutable_input()->RemoveLast(); },
                                            no_node),
                "Scan", "attribute 'body' has 1 inputs and 2 outputs; expected 2 inputs"));
  add(node_case("scan axes count", scan_of(17, none, none, [](onnx::NodeProto* n) {
                  attr(n, "scan_input_axes", std::vector<int64_t>{0, 0});
                }),
                "Scan", "attribute 'scan_input_axes' has 2 entries; expected 1"));
  add(node_case("scan direction", scan_of(17, none, none, [](onnx::NodeProto* n) {
                  attr(n, "scan_input_directions", std::vector<int64_t>{2});
                }),
                "Scan", "attribute 'scan_input_directions' holds 2; expected 0 (forward) or 1"));
  add(node_case("scan input axis", scan_of(17, none, none, [](onnx::NodeProto* n) {
                  attr(n, "scan_input_axes", std::vector<int64_t>{3});
                }),
                "Scan", "attribute 'scan_input_axes' gives input 1 'initial_state_and_scan_inputs' (value 'xs'"));
  {
    Model m = scan_of(17, none, none, no_node);
    m.g()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
    // A symbolic length runs as a loop; its states keep their types.
    auto* body = m.g()->mutable_node(m.g()->node_size() - 1)->mutable_attribute(0)->mutable_g();
    attr(add_node(body, "grow", "Concat", {"s", "e"}, {"g_out"}), "axis", int64_t{0});
    body->mutable_output(0)->set_name("g_out");
    add(node_case("scan at run time whose state changes type", m, "Scan",
                  "state 0 enters the body as f32[2] and leaves it as f32[4]"));
  }
  {
    Model m = scan_of(17, none, none, [](onnx::NodeProto* n) { attr(n, "scan_output_axes", std::vector<int64_t>{3}); });
    m.g()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
    add(node_case("scan at run time, output axis", m, "Scan",
                  "attribute 'scan_output_axes' gives scan output 0 the axis 3; expected an axis of its rank 2"));
  }
  {
    // Opset 8's batched Scan is unrolled only: a symbolic length, or one
    // past the budget, is refused.
    Model m = scan_of(8, none, none, no_node);
    m.g()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("n");
    add(node_case("scan of opset 8 of a symbolic length", m, "Scan", "is scanned along its symbolic dim n", 8));
    Model long_scan = scan_of(8, none, none, no_node);
    long_scan.g()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(6000);
    add(node_case("scan of opset 8 too long to unroll", long_scan, "Scan", "more than the 10000 body nodes edgec unrolls", 8));
  }
  add(node_case("scan lengths differ", scan_of(17, [](Model& m) { m.input("zs", {"4", "2"}); },
                                              [](onnx::GraphProto& b) { add_input(&b, "z", {2}); },
                                              [](onnx::NodeProto* n) {
                                                n->add_input("zs");
                                                n->mutable_attribute(1)->set_i(2);
                                              }),
                "Scan", "has 4 elements along dim 0; the other scan inputs have 3"));
  add(node_case("scan of opset 8 with short sequences", scan_of(8, [](Model& m) {
                  m.ints("lens", {2}, {1});
                }, none, no_node),
                "Scan", "the sequence lengths, input 0 'sequence_lens' (value 'lens'), are not all the scan length 3",
                8));
  {
    Model m = scan_of(17, none, none, no_node);
    m.g()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(0);
    add(node_case("scan of nothing", m, "Scan", "the scan inputs are empty"));
  }
}

}  // namespace edgec::refusal_cases
