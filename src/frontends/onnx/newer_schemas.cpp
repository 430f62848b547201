// Schemas of the operators that changed after opset 17, the last that
// Debian's libonnx (ONNX 1.12) knows (opsets.h). Written from ONNX's
// operator documentation for the operators the importer handles; the
// importer checks nodes against them as it checks older nodes against
// libonnx's. Operators whose later versions only admit new element types
// (bfloat16, float8, int4, string), which edgec does not compute with, keep
// libonnx's schema: the type check then refuses those types by name.
#include <onnx/defs/schema.h>

#include <map>
#include <utility>
#include <vector>

#include "frontends/onnx/opsets.h"

namespace edgec::onnx_import {
namespace {

using onnx::AttributeProto;
using onnx::OpSchema;

const std::vector<std::string> kFloats = {"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"};
const std::vector<std::string> kInts = {"tensor(int8)",   "tensor(int16)",  "tensor(int32)",  "tensor(int64)",
                                        "tensor(uint8)",  "tensor(uint16)", "tensor(uint32)", "tensor(uint64)"};
const std::vector<std::string> kIndices = {"tensor(int32)", "tensor(int64)"};

std::vector<std::string> numeric() {
  std::vector<std::string> t = kFloats;
  t.insert(t.end(), kInts.begin(), kInts.end());
  return t;
}
std::vector<std::string> all_types() {
  std::vector<std::string> t = numeric();
  t.push_back("tensor(bool)");
  t.push_back("tensor(string)");
  return t;
}

/// A schema under construction: formal parameters in order, then Finalize.
struct Builder {
  OpSchema s;
  int inputs = 0, outputs = 0;

  Builder(const char* op, int since) {
    s.SetName(op);
    s.SetDomain("");
    s.SinceVersion(since);
  }
  Builder& in(const char* name, const char* type) {
    s.Input(inputs++, name, "", type);
    return *this;
  }
  Builder& optional_in(const char* name, const char* type) {
    s.Input(inputs++, name, "", type, OpSchema::Optional);
    return *this;
  }
  Builder& out(const char* name, const char* type) {
    s.Output(outputs++, name, "", type);
    return *this;
  }
  Builder& optional_out(const char* name, const char* type) {
    s.Output(outputs++, name, "", type, OpSchema::Optional);
    return *this;
  }
  Builder& variadic_out(const char* name, const char* type) {
    s.Output(outputs++, name, "", type, OpSchema::Variadic);
    return *this;
  }
  Builder& attr(const char* name, int64_t dflt) {
    s.Attr(name, "", AttributeProto::INT, dflt);
    return *this;
  }
  Builder& attr(const char* name, float dflt) {
    s.Attr(name, "", AttributeProto::FLOAT, dflt);
    return *this;
  }
  Builder& attr(const char* name, const char* dflt) {
    s.Attr(name, "", AttributeProto::STRING, std::string(dflt));
    return *this;
  }
  /// An attribute without a default: `required` or optional.
  Builder& attr_of(const char* name, AttributeProto::AttributeType type, bool required) {
    s.Attr(name, "", type, required);
    return *this;
  }
  Builder& types(const char* var, std::vector<std::string> allowed) {
    s.TypeConstraint(var, std::move(allowed), "");
    return *this;
  }
  OpSchema done() {
    s.Finalize();
    return std::move(s);
  }
};

Builder reduce(const char* op, int since, std::vector<std::string> types) {
  Builder b(op, since);
  b.in("data", "T").optional_in("axes", "tensor(int64)").out("reduced", "T");
  b.attr("keepdims", int64_t{1}).attr("noop_with_empty_axes", int64_t{0}).types("T", std::move(types));
  return b;
}

Builder unary(const char* op, int since, std::vector<std::string> types) {
  Builder b(op, since);
  b.in("X", "T").out("Y", "T").types("T", std::move(types));
  return b;
}

Builder bitwise(const char* op) {
  Builder b(op, 18);
  b.in("A", "T").in("B", "T").out("C", "T").types("T", kInts);
  return b;
}

std::vector<OpSchema> build() {
  std::vector<OpSchema> out;
  std::vector<std::string> with_bool = numeric();
  with_bool.push_back("tensor(bool)");
  for (const char* op : {"ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                         "ReduceSumSquare", "ReduceMax", "ReduceMin"})
    out.push_back(reduce(op, 18, numeric()).done());
  out.push_back(reduce("ReduceMax", 20, with_bool).done());
  out.push_back(reduce("ReduceMin", 20, with_bool).done());
  {
    Builder b("Split", 18);
    b.in("input", "T").optional_in("split", "tensor(int64)").variadic_out("outputs", "T");
    b.attr("axis", int64_t{0}).attr_of("num_outputs", AttributeProto::INT, false).types("T", all_types());
    out.push_back(b.done());
  }
  {
    Builder b("Pad", 18);
    b.in("data", "T").in("pads", "tensor(int64)").optional_in("constant_value", "T").optional_in("axes", "Tind");
    b.out("output", "T").attr("mode", "constant").types("T", all_types()).types("Tind", kIndices);
    out.push_back(b.done());
  }
  {
    Builder b("Resize", 18);
    b.in("X", "T1").optional_in("roi", "T2").optional_in("scales", "tensor(float)");
    b.optional_in("sizes", "tensor(int64)").out("Y", "T1");
    b.attr("antialias", int64_t{0}).attr_of("axes", AttributeProto::INTS, false);
    b.attr("coordinate_transformation_mode", "half_pixel").attr("cubic_coeff_a", -0.75f);
    b.attr("exclude_outside", int64_t{0}).attr("extrapolation_value", 0.0f);
    b.attr("keep_aspect_ratio_policy", "stretch").attr("mode", "nearest").attr("nearest_mode", "round_prefer_floor");
    b.types("T1", all_types()).types("T2", kFloats);
    out.push_back(b.done());
  }
  {
    Builder b("AveragePool", 19);
    b.in("X", "T").out("Y", "T").attr("auto_pad", "NOTSET").attr("ceil_mode", int64_t{0});
    b.attr("count_include_pad", int64_t{0}).attr_of("dilations", AttributeProto::INTS, false);
    b.attr_of("kernel_shape", AttributeProto::INTS, true).attr_of("pads", AttributeProto::INTS, false);
    b.attr_of("strides", AttributeProto::INTS, false).types("T", kFloats);
    out.push_back(b.done());
  }
  {
    // Opset 18 adds dilations and ceil_mode.
    Builder b("LpPool", 18);
    b.in("X", "T").out("Y", "T").attr("auto_pad", "NOTSET").attr("ceil_mode", int64_t{0});
    b.attr_of("dilations", AttributeProto::INTS, false).attr_of("kernel_shape", AttributeProto::INTS, true);
    b.attr("p", int64_t{2}).attr_of("pads", AttributeProto::INTS, false);
    b.attr_of("strides", AttributeProto::INTS, false).types("T", kFloats);
    out.push_back(b.done());
  }
  {
    Builder b("Cast", 19);
    b.in("input", "T1").out("output", "T2").attr("saturate", int64_t{1});
    b.attr_of("to", AttributeProto::INT, true).types("T1", all_types()).types("T2", all_types());
    out.push_back(b.done());
  }
  {
    Builder b("CastLike", 19);
    b.in("input", "T1").in("target_type", "T2").out("output", "T2").attr("saturate", int64_t{1});
    b.types("T1", all_types()).types("T2", all_types());
    out.push_back(b.done());
  }
  {
    // Opset 18 adds reductions min and max (the values are checked by the
    // handlers, ops_index.cpp).
    Builder b("ScatterND", 18);
    b.in("data", "T").in("indices", "tensor(int64)").in("updates", "T").out("output", "T");
    out.push_back(b.attr("reduction", "none").types("T", all_types()).done());
  }
  {
    Builder b("ScatterElements", 18);
    b.in("data", "T").in("indices", "Tind").in("updates", "T").out("output", "T");
    b.attr("axis", int64_t{0}).attr("reduction", "none");
    out.push_back(b.types("T", all_types()).types("Tind", kIndices).done());
  }
  {
    // Opset 20 takes the axis as an input (default -2, negative allowed).
    Builder b("DFT", 20);
    b.in("input", "T1").optional_in("dft_length", "T2").optional_in("axis", "tensor(int64)").out("output", "T1");
    b.attr("inverse", int64_t{0}).attr("onesided", int64_t{0});
    out.push_back(b.types("T1", kFloats).types("T2", kIndices).done());
  }
  {
    // Opset 19 admits f16 and bf16 inputs and scales (and float8, which
    // ONNX 1.12 cannot name) and adds saturate (float8 only); opset 21
    // separates the scale's type, adds block_size and output_dtype, and
    // int16 / uint16 (and int4). The handlers refuse what edgec does not
    // compute (ops_quantized.cpp).
    const std::vector<std::string> floats = {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"};
    const std::vector<std::string> q19 = {"tensor(int8)", "tensor(uint8)"};
    const std::vector<std::string> q21 = {"tensor(int8)", "tensor(uint8)", "tensor(int16)", "tensor(uint16)"};
    std::vector<std::string> x19 = floats;
    x19.push_back("tensor(int32)");
    for (int since : {19, 21}) {
      Builder q("QuantizeLinear", since);
      q.in("x", "T1").in("y_scale", since == 19 ? "T1" : "T2").optional_in("y_zero_point", since == 19 ? "T2" : "T3");
      q.out("y", since == 19 ? "T2" : "T3").attr("axis", int64_t{1}).attr("saturate", int64_t{1});
      if (since == 21) q.attr("block_size", int64_t{0}).attr("output_dtype", int64_t{0});
      q.types("T1", x19);
      if (since == 19) {
        q.types("T2", q19);
      } else {
        std::vector<std::string> scales = floats;
        scales.push_back("tensor(int32)");
        q.types("T2", scales).types("T3", q21);
      }
      out.push_back(q.done());
      Builder d("DequantizeLinear", since);
      d.in("x", "T1").in("x_scale", "T2").optional_in("x_zero_point", "T1").out("y", "T2").attr("axis", int64_t{1});
      if (since == 21) d.attr("block_size", int64_t{0});
      std::vector<std::string> xs = since == 19 ? q19 : q21;
      xs.push_back("tensor(int32)");
      out.push_back(d.types("T1", xs).types("T2", floats).done());
    }
  }
  out.push_back(unary("Mish", 18, kFloats).done());
  out.push_back(unary("Gelu", 20, kFloats).attr("approximate", "none").done());
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) out.push_back(bitwise(op).done());
  out.push_back(unary("BitwiseNot", 18, kInts).done());
  for (int since : {18, 21}) {
    Builder b("GroupNormalization", since);
    b.in("X", "T").in("scale", "T").in("bias", "T").out("Y", "T").attr("epsilon", 1e-5f);
    b.attr_of("num_groups", AttributeProto::INT, true);
    if (since == 21) b.attr("stash_type", int64_t{1});
    out.push_back(b.types("T", kFloats).done());
  }
  {
    Builder b("CenterCropPad", 18);
    b.in("input_data", "T").in("shape", "Tind").out("output_data", "T").attr_of("axes", AttributeProto::INTS, false);
    out.push_back(b.types("T", all_types()).types("Tind", kIndices).done());
  }
  {
    Builder b("RMSNormalization", 23);
    b.in("X", "T").in("scale", "V").out("Y", "V").attr("axis", int64_t{-1}).attr("epsilon", 1e-5f);
    b.attr("stash_type", int64_t{1});
    out.push_back(b.types("T", kFloats).types("V", kFloats).done());
  }
  {
    Builder b("RotaryEmbedding", 23);
    b.in("X", "T").in("cos_cache", "T").in("sin_cache", "T").optional_in("position_ids", "M").out("Y", "T");
    b.attr("interleaved", int64_t{0}).attr_of("num_heads", AttributeProto::INT, false);
    b.attr("rotary_embedding_dim", int64_t{0});
    out.push_back(b.types("T", {"tensor(float16)", "tensor(float)", "tensor(bfloat16)"})
                      .types("M", {"tensor(int64)"})
                      .done());
  }
  {
    Builder b("Attention", 23);
    b.in("Q", "T1").in("K", "T1").in("V", "T2").optional_in("attn_mask", "U");
    b.optional_in("past_key", "T1").optional_in("past_value", "T2");
    b.out("Y", "T1").optional_out("present_key", "T1").optional_out("present_value", "T2");
    b.optional_out("qk_matmul_output", "T1");
    b.attr("is_causal", int64_t{0}).attr_of("kv_num_heads", AttributeProto::INT, false);
    b.attr_of("q_num_heads", AttributeProto::INT, false).attr("qk_matmul_output_mode", int64_t{0});
    b.attr_of("scale", AttributeProto::FLOAT, false).attr("softcap", 0.0f);
    b.attr_of("softmax_precision", AttributeProto::INT, false);
    std::vector<std::string> mask = numeric();  // the spec's; a mask is bool or of Q's type
    mask.push_back("tensor(bool)");
    out.push_back(b.types("T1", kFloats).types("T2", kFloats).types("U", mask).done());
  }
  return out;
}

}  // namespace

const onnx::OpSchema* newer_schema(const std::string& op_type, int64_t opset) {
  static const std::vector<OpSchema> schemas = build();
  const OpSchema* best = nullptr;
  for (const OpSchema& s : schemas)
    if (s.Name() == op_type && s.SinceVersion() <= opset && (!best || s.SinceVersion() > best->SinceVersion()))
      best = &s;
  return best;
}

}  // namespace edgec::onnx_import
