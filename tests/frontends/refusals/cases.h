// What the refusal cases share (tests/frontends/refusals/*_cases.cpp, walked
// by onnx_refusals_test.cpp): small models built field by field, a Case (a
// model that must be refused, and what its message must name), and the
// lists of cases, one function per area of the importer.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "frontends/onnx/importer.h"
#include "support/onnx_model.h"
#include "support/scoped_memory_limit.h"

namespace edgec::refusal_cases {

namespace fs = std::filesystem;
using onnx::AttributeProto;
using onnx::TensorProto;

inline const char* kWhat = "refusals.onnx";

// ---- building models ----------------------------------------------------------------

/// A model of opset 17 (by default) built node by node. Input dims are
/// strings: "4" a size, "n" a dim_param, "?" neither.
struct Model {
  onnx::ModelProto proto;

  explicit Model(int64_t opset = 17) : proto(empty_onnx_model()) { proto.mutable_opset_import(0)->set_version(opset); }
  onnx::GraphProto* g() { return proto.mutable_graph(); }
  Model& input(const std::string& name, const std::vector<std::string>& dims, int elem = TensorProto::FLOAT) {
    auto* t = g()->add_input();
    t->set_name(name);
    auto* tt = t->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    tt->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = tt->mutable_shape()->add_dim();
      if (d == "?") continue;
      if (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-') {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
    return *this;
  }
  /// x: f32[1, 2, 4, 4].
  Model& x() { return input("x", {"1", "2", "4", "4"}); }
  /// An int64 initializer; `dims` {-1}: [values.size()]; {}: a scalar.
  Model& ints(const std::string& name, const std::vector<int64_t>& values, std::vector<int64_t> dims = {-1},
              int elem = TensorProto::INT64) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) {
      if (elem == TensorProto::INT64) {
        t->add_int64_data(v);
      } else {
        t->add_int32_data(static_cast<int32_t>(v));
      }
    }
    return *this;
  }
  Model& floats(const std::string& name, const std::vector<float>& values, std::vector<int64_t> dims = {-1}) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::FLOAT);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  /// A float initializer of `dims` filled with ones.
  Model& weight(const std::string& name, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return floats(name, std::vector<float>(static_cast<size_t>(n), 1.0f), dims);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs, const std::string& name = "/t") {
    auto* n = add_node(g(), name, op, ins, outs);
    if (name.empty()) n->set_name(name);  // set, though empty
    return n;
  }
  Model& output(const std::string& name) {
    g()->add_output()->set_name(name);
    return *this;
  }
};

inline void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INT);
  a->set_i(v);
}
inline void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::FLOAT);
  a->set_f(v);
}
inline void attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::STRING);
  a->set_s(v);
}
inline void attr(onnx::NodeProto* n, const std::string& name, const char* v) { attr(n, name, std::string(v)); }
/// A float tensor attribute of `count` elements.
inline void attr_tensor(onnx::NodeProto* n, const std::string& name, int count) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::FLOAT);
  a->mutable_t()->add_dims(count);
  for (int i = 0; i < count; ++i) a->mutable_t()->add_float_data(1.0f);
}

// ---- cases -------------------------------------------------------------------------

struct Case {
  std::string label;
  /// Imports (or reads) the model; expected to throw an ImportRefusal.
  std::function<void()> run;
  /// Each must appear in the message.
  std::vector<std::string> expect;
};

inline void import_bytes(const std::string& bytes, const OnnxImportOptions& options = {}) {
  import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat, options);
}

/// A model-level refusal: names what it is about (`expect`).
inline Case graph_case(const std::string& label, const Model& m, std::vector<std::string> expect,
                OnnxImportOptions options = {}) {
  expect.insert(expect.begin(), std::string(kWhat) + ": ");
  const std::string bytes = m.proto.SerializeAsString();
  return Case{label, [bytes, options] { import_bytes(bytes, options); }, std::move(expect)};
}

/// A refusal of node '/t' (of type `op`) naming `operand` (an input,
/// output or attribute).
inline Case node_case(const std::string& label, const Model& m, const std::string& op, const std::string& operand,
               int64_t opset = 17) {
  return graph_case(label, m,
                    {"node '/t' (#", ", " + op + ", domain ai.onnx, opset " + std::to_string(opset) + ")", operand});
}

/// The node of `m` named '/t', to add attributes to.
inline onnx::NodeProto* t_node(Model& m) {
  for (auto& n : *m.g()->mutable_node())
    if (n.name() == "/t") return &n;
  return nullptr;
}

// The cases, by the importer files whose refusals they reach.
void add_importer_cases(std::vector<Case>& c);           // importer.cpp, context.cpp, ops_sequence.cpp, ops_control.cpp
void add_elementwise_index_cases(std::vector<Case>& c);  // ops_elementwise.cpp, ops_index.cpp
void add_nn_cases(std::vector<Case>& c);                 // ops_nn.cpp, ops_recurrent.cpp
void add_shape_cases(std::vector<Case>& c);              // ops_shape.cpp, ops_einsum.cpp
void add_newer_cases(std::vector<Case>& c);              // ops_newer.cpp, ops_transformer.cpp, ops_loss.cpp, ...
void add_microsoft_cases(std::vector<Case>& c);          // importer.cpp's com.microsoft checks, ops_microsoft.cpp
void add_quantized_cases(std::vector<Case>& c);          // ops_quantized.cpp

/// Every case.
inline std::vector<Case> cases() {
  std::vector<Case> c;
  add_importer_cases(c);
  add_elementwise_index_cases(c);
  add_nn_cases(c);
  add_shape_cases(c);
  add_newer_cases(c);
  add_microsoft_cases(c);
  add_quantized_cases(c);
  return c;
}

}  // namespace edgec::refusal_cases
