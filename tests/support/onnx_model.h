// Small ONNX models built field by field, for the importer's tests: an empty
// model, graph inputs and nodes, and the importer's error for a model.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "frontends/onnx/importer.h"

namespace edgec {

/// An empty model: IR version 8, default-domain opset 17, graph `graph_name`.
inline onnx::ModelProto empty_onnx_model(const std::string& graph_name = "g") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name(graph_name);
  return m;
}

/// A graph input of element type `elem` and the given dims (rank 0 when
/// `dims` is empty).
inline void add_input(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                      int elem = onnx::TensorProto::FLOAT) {
  auto* vi = g->add_input();
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  t->mutable_shape();
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

/// A node of type `op`; an empty `name` leaves the node's name unset.
inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  auto* n = g->add_node();
  if (!name.empty()) n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

/// Adds to `n` the int attribute `name` = `v`.
inline void set_int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

/// Adds to `n` the graph attribute `name` = `graph` (an If's branch, a
/// Loop's or Scan's body).
inline void set_graph_attr(onnx::NodeProto* n, const std::string& name, const onnx::GraphProto& graph) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = graph;
}

/// Adds to `n` the ints attribute `name` = `values`.
inline void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

/// A node of onnx_graph: its name, type, inputs and outputs.
struct OnnxNode {
  std::string name, op;
  std::vector<std::string> inputs, outputs;
};

/// empty_onnx_model() with the graph input x: f32[`x_dims`], `nodes` in
/// order and the graph outputs `outputs`.
inline onnx::ModelProto onnx_graph(const std::vector<int64_t>& x_dims, const std::vector<OnnxNode>& nodes,
                                   const std::vector<std::string>& outputs) {
  auto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", x_dims);
  for (const OnnxNode& n : nodes) add_node(g, n.name, n.op, n.inputs, n.outputs);
  for (const auto& o : outputs) g->add_output()->set_name(o);
  return m;
}

/// The importer's message for `bytes` read as the file `what`, or
/// "(no error)" where it imports.
inline std::string onnx_import_error(const std::string& bytes, const std::string& what,
                                     const OnnxImportOptions& options = {}) {
  try {
    import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), what, options);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace edgec
