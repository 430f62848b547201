// Textual IR printer. Canonical by construction: one space after commas,
// stores sorted by target, floats in their shortest round-tripping form.
#include <algorithm>
#include <charconv>
#include <cstring>

#include "base/half.h"
#include "ir/text.h"

namespace edgec {

std::string format_float(double value, bool single_precision) {
  char buf[64];
  std::to_chars_result r = single_precision
                               ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value))
                               : std::to_chars(buf, buf + sizeof buf, value);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // keep it a float literal
  return s;
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string attr_value_str(const AttrValue& v) {
  struct Visitor {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_float(d, false); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(const std::vector<int64_t>& v) const {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    }
    std::string operator()(const std::vector<double>& v) const {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_float(v[i], false);
      return s + "]";
    }
    std::string operator()(DType d) const { return std::string(dtype_name(d)); }
  };
  return std::visit(Visitor{}, v);
}

std::string element_str(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::Float32: { float f; std::memcpy(&f, p, 4); return format_float(f, true); }
    case DType::Float16: { Half h; std::memcpy(&h.bits, p, 2); return format_float(half_to_float(h), true); }
    case DType::BFloat16: { uint16_t b; std::memcpy(&b, p, 2); return format_float(bfloat16_to_float(b), true); }
    case DType::Int64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
    case DType::Int32: { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    case DType::Int8: return std::to_string(static_cast<int>(static_cast<int8_t>(*p)));
    case DType::UInt8: return std::to_string(static_cast<int>(static_cast<uint8_t>(*p)));
    case DType::Bool: return *p != std::byte{0} ? "true" : "false";
    case DType::Float64: { double d; std::memcpy(&d, p, 8); return format_float(d, false); }
    case DType::Int16: { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case DType::UInt16: { uint16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
    case DType::UInt32: { uint32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
    // As int64, which the parser reads back (values from 2^63 wrapped).
    case DType::UInt64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
  }
  return "?";
}

std::string data_str(const TensorData& data, const PrintOptions& options) {
  if (!data.bytes) return "opaque<" + std::to_string(data.type.max_numel().value_or(0) * dtype_size(data.type.dtype)) + ">";
  const auto& bytes = *data.bytes;
  if (data.splat) {  // one element standing for all (TensorData::splat)
    const int64_t nbytes = data.type.max_nbytes().value_or(0);
    if (options.elide_data_over_bytes >= 0 && nbytes > options.elide_data_over_bytes)
      return "opaque<" + std::to_string(nbytes) + ">";
    return "dense<" + element_str(data.type.dtype, bytes.data()) + ">";
  }
  if (options.elide_data_over_bytes >= 0 && static_cast<int64_t>(bytes.size()) > options.elide_data_over_bytes)
    return "opaque<" + std::to_string(bytes.size()) + ">";
  const size_t esz = dtype_size(data.type.dtype);
  const size_t n = esz ? bytes.size() / esz : 0;
  bool splat = n > 1;
  for (size_t i = 1; i < n && splat; ++i)
    splat = std::memcmp(bytes.data(), bytes.data() + i * esz, esz) == 0;
  if (splat) return "dense<" + element_str(data.type.dtype, bytes.data()) + ">";
  std::string s = "dense<[";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += element_str(data.type.dtype, bytes.data() + i * esz);
  }
  return s + "]>";
}

void print_store(std::string& out, const char* name, const Store& store, const PrintOptions& options) {
  if (store.empty()) return;
  out += "\n";
  out += name;
  out += " {\n";
  // In target order, so that printing the same program twice gives the
  // same text (a Store is a hash map).
  std::vector<const Store::value_type*> entries;
  entries.reserve(store.size());
  for (const auto& entry : store) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : entries)
    out += "  " + quote(entry->first) + " = " + data_str(entry->second, options) + " : " + entry->second.type.str() + "\n";
  out += "}\n";
}

void print_nodes(std::string& out, const Graph& g, const std::string& indent);

void print_call(std::string& out, const Node* n, const std::string& indent) {
  for (size_t i = 0; i < n->num_results(); ++i) out += (i ? ", %" : "%") + n->result(i)->name();
  out += " = " + n->op() + "(";
  bool first = true;
  size_t input = 0;
  for (const OperandGroup& g : n->operand_groups()) {
    out += first ? "" : ", ";
    first = false;
    if (g.is_list) {
      out += "[";
      for (int k = 0; k < g.count; ++k) out += (k ? ", %" : "%") + n->input(input++)->name();
      out += "]";
    } else {
      out += "%" + n->input(input++)->name();
    }
  }
  for (const auto& [name, value] : n->attrs().items()) {
    out += first ? "" : ", ";
    first = false;
    out += name + " = " + attr_value_str(value);
  }
  out += ") : ";
  for (size_t i = 0; i < n->num_results(); ++i) out += (i ? ", " : "") + n->result(i)->type().str();
  std::vector<std::string> extra;
  if (!n->tag().empty()) extra.push_back("tag = " + quote(n->tag()));
  if (!n->refusals().empty()) {
    std::string list = "refused = [";
    for (size_t i = 0; i < n->refusals().size(); ++i)
      list += (i ? ", " : "") + quote(n->refusals()[i].backend + ": " + n->refusals()[i].reason);
    extra.push_back(list + "]");
  }
  for (size_t i = 0; i < extra.size(); ++i) out += (i ? ", " : " {") + extra[i];
  if (!extra.empty()) out += "}";
  out += "\n";
  // Regions follow their call, one `region { ... }` each, indented.
  for (size_t r = 0; r < n->num_regions(); ++r) {
    out += indent + "region {\n";
    print_nodes(out, n->region(r), indent + "  ");
    out += indent + "}\n";
  }
}

void print_nodes(std::string& out, const Graph& g, const std::string& indent) {
  for (const Node* n : g.nodes()) {
    out += indent;
    if (n->is_placeholder()) {
      out += "%" + n->result()->name() + " = placeholder : " + n->result()->type().str() + "\n";
    } else if (n->is_call()) {
      print_call(out, n, indent);
    } else {
      out += "output(";
      for (size_t i = 0; i < n->inputs().size(); ++i)
        out += (i ? ", %" : "%") + (n->input(i) ? n->input(i)->name() : std::string("<null>"));
      out += ")\n";
    }
  }
}

// Planned values in graph order, regions after their call.
void print_planned(std::string& out, const Graph& g, const MemoryPlan& plan) {
  for (const Node* n : g.calls()) {
    for (size_t i = 0; i < n->num_results(); ++i) {
      auto it = plan.values.find(n->result(i)->name());
      if (it == plan.values.end()) continue;
      out += "  %" + it->first + " = offset " + std::to_string(it->second.offset) + " size " +
             std::to_string(it->second.size) + "\n";
    }
    for (size_t r = 0; r < n->num_regions(); ++r) print_planned(out, n->region(r), plan);
  }
}

}  // namespace

std::string print_program(const Program& p, const PrintOptions& options) {
  std::string out = "program dialect = " + quote(p.dialect) + "\n\nsignature {\n";
  for (const auto& s : p.inputs) {
    out += std::string("  input ") + input_kind_name(s.kind) + " %" + s.arg;
    if (!s.target.empty()) out += " target = " + quote(s.target);
    if (s.kind == InputKind::Buffer) out += std::string(" persistent = ") + (s.persistent ? "true" : "false");
    out += "\n";
  }
  for (const auto& s : p.outputs)
    out += std::string("  output ") + output_kind_name(s.kind) + " %" + s.arg + " target = " + quote(s.target) + "\n";
  out += "}\n\ngraph {\n";
  print_nodes(out, p.graph, "  ");
  out += "}\n";
  if (!p.memory_plan.empty()) {
    out += "\nmemory_plan arena_size = " + std::to_string(p.memory_plan.arena_size) + " {\n";
    print_planned(out, p.graph, p.memory_plan);
    out += "}\n";
  }
  print_store(out, "state", p.state, options);
  print_store(out, "constants", p.constants, options);
  for (size_t i = 0; i < p.delegates.size(); ++i) {
    const Delegate& d = p.delegates[i];
    out += "\ndelegate " + std::to_string(i) + " backend = " + quote(d.backend) + " {\n";
    if (d.program) out += print_program(*d.program, options);
    out += "}\n";
  }
  return out;
}

}  // namespace edgec
