// NodeContext: a node's inputs (materialized on demand), attributes and
// outputs, for the operator handlers.
#include "frontends/onnx/context.h"

#include "ir/diagnostic.h"

namespace edgec::onnx_import {

void NodeContext::fail(const std::string& message) const { throw CompileError(message); }

Entry* NodeContext::input(size_t i) {
  if (i >= num_inputs() || node_.input(static_cast<int>(i)).empty()) return nullptr;
  Entry& e = im_.entry(node_.input(static_cast<int>(i)));
  if (!e.unavailable.empty()) fail(e.unavailable);
  return &e;
}

Entry& NodeContext::required(size_t i) {
  Entry* e = input(i);
  if (!e) fail("expected input " + std::to_string(i) + ", got none");
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
    if (is_floating(d->type.dtype))
      fail(what + " (input " + std::to_string(i) + " '" + node_.input(static_cast<int>(i)) +
           "') must be an integer tensor, got " + d->type.str());
    return data_as_ints(*d);
  }
  if (auto s = sym(i)) {
    std::vector<int64_t> out;
    for (const SymInt& x : *s) {
      if (!x.is_static())
        fail(what + " (input " + std::to_string(i) + " '" + node_.input(static_cast<int>(i)) +
             "') must be known at import time, got the symbolic size " + x.str());
      out.push_back(x.factor);
    }
    return out;
  }
  fail(what + " (input " + std::to_string(i) + " '" + node_.input(static_cast<int>(i)) +
       "') must be known at import time, but it is computed from run-time data" + std::string(kRunTimeDataHint));
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

int64_t NodeContext::attr_int(const std::string& name, int64_t dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::INT) fail("attribute '" + name + "' should be an int");
  return a->i();
}

double NodeContext::attr_float(const std::string& name, double dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() == onnx::AttributeProto::INT) return static_cast<double>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT) fail("attribute '" + name + "' should be a float");
  return a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& dflt) const {
  const auto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::STRING) fail("attribute '" + name + "' should be a string");
  return a->s();
}

std::optional<std::vector<int64_t>> NodeContext::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  if (a->type() != onnx::AttributeProto::INTS) fail("attribute '" + name + "' should be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::string NodeContext::hint(size_t i) const {
  if (i < num_outputs() && !node_.output(static_cast<int>(i)).empty())
    return sanitize_name(node_.output(static_cast<int>(i)));
  return sanitize_name(node_.name().empty() ? node_.op_type() : node_.name());
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
