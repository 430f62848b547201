// NodeContext: a node's inputs (materialized on demand), attributes and
// outputs, for the operator handlers.
#include <onnx/defs/schema.h>

#include "frontends/onnx/context.h"

#include "ir/operator.h"

namespace edgec::onnx_import {
namespace {

using FormalParameters = std::vector<onnx::OpSchema::FormalParameter>;

/// The schema's name for parameter i; a variadic last parameter names all
/// the rest.
std::string formal_name(const FormalParameters& params, size_t i) {
  if (i < params.size()) return params[i].GetName();
  if (!params.empty() && params.back().GetOption() == onnx::OpSchema::Variadic) return params.back().GetName();
  return "";
}

/// "input 1 'shape'", "input 1 'shape' (value 'v')", "input 1 'shape' (value
/// 'v', i64[2])", "input 1 'shape' (i64[2])".
std::string label(const char* kind, size_t i, const std::string& formal, const std::string& value,
                  const std::string& type = "") {
  std::string s = std::string(kind) + " " + std::to_string(i);
  if (formal.empty()) return s + (value.empty() ? "" : " '" + value + "'") + (type.empty() ? "" : " (" + type + ")");
  s += " '" + formal + "'";
  std::string notes;
  if (!value.empty() && value != formal) notes = "value '" + value + "'";
  if (!type.empty()) notes += (notes.empty() ? "" : ", ") + type;
  return notes.empty() ? s : s + " (" + notes + ")";
}

}  // namespace

std::string NodeContext::operand(size_t i) const {
  const std::string value = i < num_inputs() ? node_.input(static_cast<int>(i)) : "";
  return label("input", i, schema_ ? formal_name(schema_->inputs(), i) : "", value);
}

std::string NodeContext::typed_operand(size_t i) {
  const std::string value = i < num_inputs() ? node_.input(static_cast<int>(i)) : "";
  const Entry& e = required(i);
  const std::string type = e.seq ? "a sequence of " + std::to_string(e.seq->count) + " " +
                                       std::string(dtype_name(e.seq->dtype)) + " tensors"
                                 : e.type.str();
  return label("input", i, schema_ ? formal_name(schema_->inputs(), i) : "", value, type);
}

std::string NodeContext::result(size_t i) const {
  const std::string value = i < num_outputs() ? node_.output(static_cast<int>(i)) : "";
  return label("output", i, schema_ ? formal_name(schema_->outputs(), i) : "", value);
}

void NodeContext::fail_not_known(size_t i, const std::string& what, const std::string& why,
                                 std::source_location site) const {
  refuse(what + ", " + operand(i) + ", must be known at import time" + why + ", but it is computed at run time " +
             im_.run_time_sources(node_.input(static_cast<int>(i))),
         site);
}

Entry* NodeContext::input(size_t i) {
  if (i >= num_inputs() || node_.input(static_cast<int>(i)).empty()) return nullptr;
  Entry& e = im_.entry(node_.input(static_cast<int>(i)));
  if (!e.unavailable.empty()) fail(e.unavailable);
  return &e;
}

Entry& NodeContext::required(size_t i) {
  Entry* e = input(i);
  // The schema check has required the inputs the operator requires.
  if (!e) internal_error("a handler read " + operand(i) + ", which the node does not have");
  return *e;
}

Value* NodeContext::value(size_t i) {
  required(i);
  return im_.materialize(node_.input(static_cast<int>(i)));
}

const TensorData* NodeContext::data(size_t i) {
  Entry* e = input(i);
  if (!e) return nullptr;
  if (e->data) return &*e->data;
  if (e->value) return im_.known(e->value);
  return nullptr;
}

std::vector<int64_t> NodeContext::ints(size_t i, const std::string& what) {
  required(i);
  if (const TensorData* d = data(i)) {
    // The schemas constrain every input read as ints to integer types.
    if (is_floating(d->type.dtype)) internal_error(what + ", " + operand(i) + ", read as ints is " + d->type.str());
    return data_as_ints(*d);
  }
  if (auto s = sym(i)) {
    std::vector<int64_t> out;
    for (const SymInt& x : *s) {
      if (!x.is_static())
        fail(what + ", " + operand(i) + ", must be known at import time, got the symbolic size " + x.str() +
             ", computed at run time " + im_.run_time_sources(node_.input(static_cast<int>(i))));
      out.push_back(x.factor);
    }
    return out;
  }
  fail_not_known(i, what);
}

int64_t NodeContext::int_scalar(size_t i, const std::string& what) {
  const std::vector<int64_t> v = ints(i, what);
  if (v.size() != 1) fail(what + ", " + operand(i) + ", must hold one value, got " + std::to_string(v.size()));
  return v[0];
}

std::optional<std::vector<SymInt>> NodeContext::sym(size_t i) {
  Entry& e = required(i);
  if (e.sym) return e.sym;
  const TensorData* d = data(i);
  if (!d || d->type.rank() > 1 || is_floating(d->type.dtype)) return std::nullopt;
  std::vector<SymInt> out;
  for (int64_t v : data_as_ints(*d)) out.push_back(SymInt::constant(v));
  return out;
}

const onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// The schema check (importer.cpp) refuses attributes the operator does not
// declare and declared ones of another kind, so a kind read here is the
// schema's, and a mismatch is the importer's mistake.
int64_t NodeContext::attr_int(const std::string& name, int64_t dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::INT) internal_error("attribute '" + name + "' read as an int");
  return a->i();
}

double NodeContext::attr_float(const std::string& name, double dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::FLOAT) internal_error("attribute '" + name + "' read as a float");
  return a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::STRING) internal_error("attribute '" + name + "' read as a string");
  return a->s();
}

std::optional<std::vector<int64_t>> NodeContext::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  if (a->type() != onnx::AttributeProto::INTS) internal_error("attribute '" + name + "' read as a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::string NodeContext::hint(size_t i) const {
  if (i < num_outputs() && !node_.output(static_cast<int>(i)).empty())
    return sanitize_name(node_.output(static_cast<int>(i)));
  return sanitize_name(node_.name().empty() ? node_.op_type() : node_.name());
}

bool NodeContext::fold_constants(const std::string& op, const Attrs& attrs) {
  if (num_outputs() != 1) return false;
  SmallVector<const TensorData*, 4> data;
  for (size_t i = 0; i < num_inputs(); ++i) {
    const Entry* e = input(i);
    // A constant: data with no value yet, or a placeholder's (parameters
    // and user inputs have no data; a call's data is not a constant).
    if (!e || !e->data || (e->value && !e->value->producer()->is_placeholder())) return false;
    data.push_back(&*e->data);
  }
  const OpInfo* row = find_op_by_name(op);
  if (!row) internal_error("no operator '" + op + "' in the operator table");
  const std::vector<OperandGroup> groups(data.size(), OperandGroup{});
  auto outs = im_.fold_data(*row, data, groups, attrs, hint());
  if (!outs || outs->size() != 1) return false;
  Entry e;
  e.type = (*outs)[0].type;
  e.data = std::move((*outs)[0]);
  set_output(0, std::move(e));
  return true;
}

void NodeContext::set_output(size_t i, Value* v) {
  if (!has_output(i)) return;
  im_.define(node_.output(static_cast<int>(i)), im_.entry_of(v));
}

void NodeContext::set_output(size_t i, Entry e) {
  if (!has_output(i)) return;
  im_.define(node_.output(static_cast<int>(i)), std::move(e));
}

void NodeContext::forward(size_t out, size_t in) {
  Entry e = required(in);
  if (e.alias.empty()) e.alias = node_.input(static_cast<int>(in));
  set_output(out, std::move(e));
}

void NodeContext::set_sym_output(size_t i, std::vector<SymInt> elems, bool scalar, DType dtype) {
  Entry e;
  const int64_t n = static_cast<int64_t>(elems.size());
  e.type = scalar ? TensorType(dtype, {}) : TensorType(dtype, {Dim::fixed(n)});
  bool all_static = true;
  std::vector<int64_t> values;
  for (const SymInt& s : elems) {
    all_static &= s.is_static();
    values.push_back(s.factor);
  }
  if (all_static) e.data = make_int_data(dtype, scalar ? std::vector<int64_t>{} : std::vector<int64_t>{n}, values);
  if (dtype == DType::Int64 || dtype == DType::Int32) e.sym = std::move(elems);
  set_output(i, std::move(e));
}

void NodeContext::outputs_unsupported_from(size_t count, const std::string& why) {
  for (size_t i = count; i < num_outputs(); ++i) {
    if (!has_output(i)) continue;
    Entry e;
    e.unavailable = "'" + node_.output(static_cast<int>(i)) + "' (output " + std::to_string(i) + " of " +
                    node_.op_type() + " node '" + node_.name() + "') is not computed by edgec: " + why;
    im_.define(node_.output(static_cast<int>(i)), std::move(e));
  }
}

}  // namespace edgec::onnx_import
