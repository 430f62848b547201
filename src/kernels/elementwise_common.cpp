#include "kernels/elementwise_common.h"

#include <variant>

namespace edgec {

Error check_operands(std::string_view op, std::span<const Tensor> inputs, size_t num_inputs,
                     std::span<Tensor> outputs, size_t num_outputs) {
  EDGEC_TRY(check_arity(op, inputs, num_inputs, outputs, num_outputs));
  for (const Tensor& t : inputs) EDGEC_TRY(check_tensor_layout(op, t));
  return Error::Ok;
}

Error check_same_dtype(std::string_view op, const Tensor& a, const Tensor& b) {
  if (a.dtype == b.dtype) return Error::Ok;
  return fail(Error::InvalidType, std::string(op) + ": expected inputs of the same dtype, got " +
                                      std::string(dtype_name(a.dtype)) + " and " +
                                      std::string(dtype_name(b.dtype)));
}

Error read_float_attr(std::string_view op, const Attrs& attrs, std::string_view name, double dflt,
                      double& value) {
  const AttrValue* v = attrs.find(name);
  if (v == nullptr) {
    value = dflt;
    return Error::Ok;
  }
  if (const double* f = std::get_if<double>(v)) {
    value = *f;
    return Error::Ok;
  }
  if (const int64_t* i = std::get_if<int64_t>(v)) {
    value = static_cast<double>(*i);
    return Error::Ok;
  }
  return fail(Error::InvalidArgument, std::string(op) + ": expected attribute " +
                                          std::string(name) + " to be a float, got " +
                                          std::string(attr_kind_name(attr_kind(*v))));
}

Error read_choice_attr(std::string_view op, const Attrs& attrs, std::string_view name,
                       std::string_view dflt, std::initializer_list<std::string_view> choices,
                       std::string_view& value) {
  const AttrValue* v = attrs.find(name);
  if (v == nullptr) {
    value = dflt;
    return Error::Ok;
  }
  const std::string* s = std::get_if<std::string>(v);
  if (s != nullptr) {
    for (std::string_view c : choices) {
      if (*s == c) {
        value = c;
        return Error::Ok;
      }
    }
  }
  std::string expected;
  for (std::string_view c : choices) {
    expected += expected.empty() ? "'" : ", '";
    expected += c;
    expected += "'";
  }
  const std::string got = s != nullptr ? "'" + *s + "'"
                                       : "a " + std::string(attr_kind_name(attr_kind(*v)));
  return fail(Error::InvalidArgument, std::string(op) + ": expected attribute " +
                                          std::string(name) + " to be one of " + expected +
                                          ", got " + got);
}

OpDecl elementwise_decl(std::string_view name, std::string_view overload, std::vector<OperandDecl> operands,
                        DTypeSet dtypes, ResultRule result, std::string_view summary, std::vector<AttrDecl> attrs) {
  OpDecl d = declare(name, "elementwise", std::move(operands), std::move(attrs), dtypes, kOpElementwise, summary);
  d.overload = overload;
  d.result = result;
  return d;
}

}  // namespace edgec
