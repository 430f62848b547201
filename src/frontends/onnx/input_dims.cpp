// Graph input dims from the import options (input_dims.h).
#include "frontends/onnx/input_dims.h"

#include "frontends/onnx/refusal.h"

namespace edgec::onnx_import {
namespace {

std::string shape_str(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "(a scalar)" : s;
}

/// One dim of an input as the model declares it: a size, or a name.
struct DeclaredDim {
  int64_t size = -1;
  std::string name;
};

std::vector<DeclaredDim> declared_dims(const onnx::ValueInfoProto& vi) {
  std::vector<DeclaredDim> out;
  const auto& shape = vi.type().tensor_type().shape();
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (d.has_dim_value()) {
      out.push_back({d.dim_value(), {}});
    } else {
      out.push_back({-1, d.has_dim_param() && !d.dim_param().empty() ? d.dim_param() : unnamed_dim_name(vi.name(), i)});
    }
  }
  return out;
}

}  // namespace

std::string unnamed_dim_name(const std::string& input, int i) { return input + "_dim" + std::to_string(i); }

InputDimSizes resolve_input_dims(const onnx::GraphProto& g, const std::set<std::string>& initializers,
                                 const OnnxImportOptions& options, const std::string& what) {
  InputDimSizes r;
  for (const auto& [name, size] : options.dim_sizes) {
    r.sizes[name] = size;
    r.size_source[name] = "--dim " + name + "=" + std::to_string(size);
  }
  for (const auto& [name, bound] : options.dim_bounds) {
    r.bounds[name] = bound;
    r.bound_source[name] = "--max-dim " + name + "=" + std::to_string(bound);
  }
  std::map<std::string, const onnx::ValueInfoProto*> inputs;
  for (const auto& vi : g.input())
    if (!initializers.count(vi.name()) && vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      inputs[vi.name()] = &vi;
  const auto apply = [&](const std::map<std::string, std::vector<int64_t>>& given, bool is_max) {
    const char* flag = is_max ? "--max-shape" : "--shape";
    const char* field = is_max ? "input_max_shapes" : "input_shapes";
    for (const auto& [input, dims] : given) {
      const std::string option = std::string(flag) + " " + input + "=" + shape_str(dims);
      auto it = inputs.find(input);
      if (it == inputs.end()) {
        std::string known;
        for (const auto& [n, vi] : inputs) known += (known.empty() ? "'" : ", '") + n + "'";
        refuse(what + ": " + option + " (" + field + ") names '" + input +
               "', which is not a graph input of the model with a shape (its inputs: " +
               (known.empty() ? "none" : known) + ")");
      }
      const auto declared = declared_dims(*it->second);
      if (declared.size() != dims.size())
        refuse(what + ": " + option + " gives " + std::to_string(dims.size()) + " dims; graph input '" + input +
               "' has rank " + std::to_string(declared.size()));
      for (size_t i = 0; i < dims.size(); ++i) {
        const DeclaredDim& d = declared[i];
        const std::string where = "dim " + std::to_string(i) + " of graph input '" + input + "'";
        if (dims[i] < 0) refuse(what + ": " + option + " gives " + where + " the negative size " + std::to_string(dims[i]));
        if (d.size >= 0) {
          if (is_max ? dims[i] < d.size : dims[i] != d.size)
            refuse(what + ": " + option + " gives " + where + (is_max ? " the bound " : " the size ") +
                   std::to_string(dims[i]) + ", but the model fixes it to " + std::to_string(d.size) +
                   (is_max ? "; expected a bound of at least that" : "; expected that size"));
          continue;
        }
        auto& table = is_max ? r.bounds : r.sizes;
        auto& source = is_max ? r.bound_source : r.size_source;
        const std::string named = d.name == unnamed_dim_name(input, static_cast<int>(i)) ? "" : " ('" + d.name + "')";
        if (auto prev = table.find(d.name); prev != table.end()) {
          if (is_max) {
            prev->second = std::min(prev->second, dims[i]);  // both bound it: the smaller holds
            continue;
          }
          if (prev->second != dims[i])
            refuse(what + ": " + option + " gives " + where + named + " the size " + std::to_string(dims[i]) +
                   ", but " + source[d.name] + " gives it " + std::to_string(prev->second) +
                   "; expected one size for a named dim");
          continue;
        }
        table[d.name] = dims[i];
        source[d.name] = option;
      }
    }
  };
  apply(options.input_shapes, false);
  apply(options.input_max_shapes, true);
  return r;
}

}  // namespace edgec::onnx_import
