#include "kernels/op_decl.h"

#include <cmath>
#include <variant>

namespace edgec {
namespace {

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  return s;
}

std::string value_text(const AttrValue& v) {
  switch (attr_kind(v)) {
    case AttrKind::Int: return std::to_string(std::get<int64_t>(v));
    case AttrKind::Float: return number_text(std::get<double>(v));
    case AttrKind::Bool: return std::get<bool>(v) ? "true" : "false";
    case AttrKind::String: return "'" + std::get<std::string>(v) + "'";
    case AttrKind::Ints: {
      std::string s = "[";
      for (int64_t x : std::get<std::vector<int64_t>>(v)) s += (s.size() > 1 ? ", " : "") + std::to_string(x);
      return s + "]";
    }
    case AttrKind::Floats: {
      std::string s = "[";
      for (double x : std::get<std::vector<double>>(v)) s += (s.size() > 1 ? ", " : "") + number_text(x);
      return s + "]";
    }
    case AttrKind::DType: return std::string(dtype_name(std::get<DType>(v)));
  }
  return "?";
}

// Whether `x` passes a numeric rule.
bool passes(AttrRule rule, double x) {
  switch (rule) {
    case AttrRule::NonZero: return x != 0;
    case AttrRule::Positive: return x > 0;
    case AttrRule::NonNegative: return x >= 0;
    default: return true;
  }
}

}  // namespace

double AttrDecl::float_value(const Attrs& attrs) const { return attrs.get_float(name, number); }
int64_t AttrDecl::int_value(const Attrs& attrs) const { return attrs.get_int(name, static_cast<int64_t>(number)); }
bool AttrDecl::bool_value(const Attrs& attrs) const { return attrs.get_bool(name, number != 0); }
std::string_view AttrDecl::string_value(const Attrs& attrs) const { return attrs.get_string(name, text); }
DType AttrDecl::dtype_value(const Attrs& attrs) const { return attrs.get_dtype(name, dtype); }
const std::vector<int64_t>* AttrDecl::ints_value(const Attrs& attrs) const { return attrs.get_ints(name); }

std::string AttrDecl::allowed() const {
  const std::string kind_name(attr_kind_name(kind));
  const std::string a = (kind == AttrKind::Int ? "an " : "a ") + kind_name;
  switch (rule) {
    case AttrRule::Any: return a;
    case AttrRule::NonZero: return a + " other than 0";
    case AttrRule::Positive: return kind == AttrKind::Ints ? "a list of ints > 0" : a + " > 0";
    case AttrRule::NonNegative: return kind == AttrKind::Ints ? "a list of ints >= 0" : a + " >= 0";
    case AttrRule::OneOf: {
      std::string s = "one of ";
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? ", '" : "'") + std::string(choices[i]) + "'";
      return s;
    }
  }
  return "a " + kind_name;
}

std::string AttrDecl::problem(const AttrValue& value) const {
  const AttrKind got = attr_kind(value);
  // As the readers take them: an int where a float is declared (the text
  // form of 1.0 may be 1), an int where a bool is and a bool where an int
  // is, one int where a list is.
  const bool kind_ok = got == kind || (kind == AttrKind::Float && got == AttrKind::Int) ||
                       (kind == AttrKind::Int && got == AttrKind::Bool) ||
                       (kind == AttrKind::Bool && got == AttrKind::Int) ||
                       (kind == AttrKind::Ints && got == AttrKind::Int);  // one int for a list of one (dims)
  if (!kind_ok)
    return "expected " + std::string(attr_kind_name(kind)) + ", got " + std::string(attr_kind_name(got)) + " " +
           value_text(value);
  bool ok = true;
  switch (rule) {
    case AttrRule::Any: break;
    case AttrRule::NonZero:
    case AttrRule::Positive:
    case AttrRule::NonNegative:
      if (got == AttrKind::Int) ok = passes(rule, static_cast<double>(std::get<int64_t>(value)));
      else if (got == AttrKind::Float) ok = passes(rule, std::get<double>(value));
      else if (got == AttrKind::Ints)
        for (int64_t x : std::get<std::vector<int64_t>>(value)) ok = ok && passes(rule, static_cast<double>(x));
      break;
    case AttrRule::OneOf: {
      ok = false;
      if (const std::string* s = std::get_if<std::string>(&value))
        for (std::string_view c : choices) ok = ok || *s == c;
      break;
    }
  }
  if (ok) return {};
  return "is " + value_text(value) + "; expected " + allowed();
}

namespace {

// A declaration of `name` of `kind`, with a number as its default (0 for
// kinds whose default is not a number) and a rule.
AttrDecl make_attr(std::string_view name, AttrKind kind, double number = 0, AttrRule rule = AttrRule::Any) {
  AttrDecl a;
  a.name = name;
  a.kind = kind;
  a.number = number;
  a.rule = rule;
  return a;
}

}  // namespace

AttrDecl attr_int(std::string_view name, int64_t dflt, AttrRule rule) {
  return make_attr(name, AttrKind::Int, static_cast<double>(dflt), rule);
}

AttrDecl attr_float(std::string_view name, double dflt, AttrRule rule) {
  return make_attr(name, AttrKind::Float, dflt, rule);
}

AttrDecl attr_bool(std::string_view name, bool dflt) { return make_attr(name, AttrKind::Bool, dflt ? 1 : 0); }

AttrDecl attr_string(std::string_view name, std::string_view dflt, std::initializer_list<std::string_view> choices) {
  AttrDecl a = make_attr(name, AttrKind::String);
  a.text = dflt;
  a.choices.assign(choices.begin(), choices.end());
  a.rule = a.choices.empty() ? AttrRule::Any : AttrRule::OneOf;
  return a;
}

AttrDecl attr_ints(std::string_view name, AttrRule rule) { return make_attr(name, AttrKind::Ints, 0, rule); }

AttrDecl attr_floats(std::string_view name) { return make_attr(name, AttrKind::Floats); }

AttrDecl attr_dtype(std::string_view name, DType dflt) {
  AttrDecl a = make_attr(name, AttrKind::DType);
  a.dtype = dflt;
  return a;
}

AttrDecl required(AttrDecl a) {
  a.required = true;
  return a;
}

std::string DTypeSet::str() const {
  std::string s;
  for (int d = 0; d < 32; ++d)
    if (bits_ & (uint32_t{1} << d)) s += (s.empty() ? "" : ", ") + std::string(dtype_name(static_cast<DType>(d)));
  return s;
}

OpDecl declare(std::string_view name, std::string_view family, std::vector<OperandDecl> operands,
               std::vector<AttrDecl> attrs, DTypeSet dtypes, uint32_t flags, std::string_view summary) {
  OpDecl d;
  d.name = name;
  d.family = family;
  d.operands = std::move(operands);
  d.attrs = std::move(attrs);
  d.dtypes = dtypes;
  d.flags = flags;
  d.summary = summary;
  return d;
}

const AttrDecl* OpDecl::attr(std::string_view attr_name) const {
  for (const AttrDecl& a : attrs)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::string OpDecl::attrs_problem(const Attrs& given) const {
  for (const auto& [key, value] : given.items()) {
    const AttrDecl* a = attr(key);
    if (!a) {
      std::string known;
      for (const AttrDecl& d : attrs) known += (known.empty() ? "'" : ", '") + std::string(d.name) + "'";
      return "attribute '" + key + "' is not an attribute of " + std::string(name) + "; expected " +
             (known.empty() ? std::string("none") : "one of " + known);
    }
    if (std::string p = a->problem(value); !p.empty()) {
      if (p.rfind("is ", 0) == 0) return "attribute '" + key + "' " + p;
      return "attribute '" + key + "': " + p;
    }
  }
  for (const AttrDecl& a : attrs)
    if (a.required && !given.has(a.name))
      return "attribute '" + std::string(a.name) + "' (" + std::string(attr_kind_name(a.kind)) +
             ") is required, got none";
  return {};
}

namespace {

Error wrong_kind(std::string_view op, const AttrDecl& decl, const AttrValue& v, const char* want) {
  return fail(Error::InvalidArgument, std::string(op) + ": expected attribute " + std::string(decl.name) + " to be " +
                                          want + ", got " + std::string(attr_kind_name(attr_kind(v))));
}

// The rule's refusal, in the kernels' words.
Error refused(std::string_view op, const AttrDecl& decl, const AttrValue& v) {
  if (decl.rule == AttrRule::NonZero)
    return fail(Error::InvalidArgument,
                std::string(op) + ": expected a non-zero " + std::string(decl.name) + ", got " + value_text(v));
  return fail(Error::InvalidArgument, std::string(op) + ": expected attribute " + std::string(decl.name) + " to be " +
                                          decl.allowed() + ", got " + value_text(v));
}

}  // namespace

Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, double& value) {
  const AttrValue* v = attrs.find(decl.name);
  if (!v) {
    value = decl.number;
    return Error::Ok;
  }
  if (const double* f = std::get_if<double>(v)) value = *f;
  else if (const int64_t* i = std::get_if<int64_t>(v)) value = static_cast<double>(*i);
  else return wrong_kind(op, decl, *v, "a float");
  if (!decl.problem(*v).empty()) return refused(op, decl, *v);
  return Error::Ok;
}

Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, std::string_view& value) {
  const AttrValue* v = attrs.find(decl.name);
  if (!v) {
    value = decl.text;
    return Error::Ok;
  }
  const std::string* s = std::get_if<std::string>(v);
  if (s && decl.problem(*v).empty()) {
    // A view of the declaration's own text where it is a choice, so that
    // it outlives `attrs`.
    value = *s;
    for (std::string_view c : decl.choices)
      if (c == *s) value = c;
    return Error::Ok;
  }
  if (decl.rule == AttrRule::OneOf) {
    std::string expected;
    for (std::string_view c : decl.choices) expected += (expected.empty() ? "'" : ", '") + std::string(c) + "'";
    const std::string got = s ? "'" + *s + "'" : "a " + std::string(attr_kind_name(attr_kind(*v)));
    return fail(Error::InvalidArgument, std::string(op) + ": expected attribute " + std::string(decl.name) +
                                            " to be one of " + expected + ", got " + got);
  }
  return wrong_kind(op, decl, *v, "a str");
}

Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, int64_t& value) {
  const AttrValue* v = attrs.find(decl.name);
  if (!v) {
    value = static_cast<int64_t>(decl.number);
    return Error::Ok;
  }
  if (const int64_t* i = std::get_if<int64_t>(v)) value = *i;
  else if (const bool* b = std::get_if<bool>(v)) value = *b ? 1 : 0;
  else return wrong_kind(op, decl, *v, "an int");
  if (!decl.problem(*v).empty()) return refused(op, decl, *v);
  return Error::Ok;
}

Error read_attr(std::string_view op, const Attrs& attrs, const AttrDecl& decl, bool& value) {
  const AttrValue* v = attrs.find(decl.name);
  if (!v) {
    value = decl.number != 0;
    return Error::Ok;
  }
  if (const bool* b = std::get_if<bool>(v)) value = *b;
  else if (const int64_t* i = std::get_if<int64_t>(v)) value = *i != 0;
  else return wrong_kind(op, decl, *v, "a bool");
  return Error::Ok;
}

}  // namespace edgec
