#include "serialize/writer.h"

#include <cstring>
#include <map>

#include "ir/diagnostic.h"
#include "ir/operator.h"
#include "serialize/format.h"
#include "serialize/program_generated.h"

namespace edgec {
namespace {

namespace fbs = ::edgec::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<fbs::TensorInfo> write_type(FlatBufferBuilder& b, const TensorType& t) {
  std::vector<Offset<fbs::Dim>> dims;
  for (const Dim& d : t.dims) {
    auto sym = d.kind == Dim::Kind::Symbolic ? b.CreateString(d.symbol) : Offset<flatbuffers::String>();
    dims.push_back(fbs::CreateDim(b, static_cast<fbs::DimKind>(d.kind), d.value, sym));
  }
  return fbs::CreateTensorInfo(b, static_cast<uint8_t>(t.dtype), b.CreateVector(dims));
}

Offset<fbs::Attr> write_attr(FlatBufferBuilder& b, const std::string& name, const AttrValue& v) {
  auto n = b.CreateString(name);
  switch (attr_kind(v)) {
    case AttrKind::Int:
      return fbs::CreateAttr(b, n, fbs::AttrValue::IntAttr, fbs::CreateIntAttr(b, std::get<int64_t>(v)).Union());
    case AttrKind::Float:
      return fbs::CreateAttr(b, n, fbs::AttrValue::FloatAttr, fbs::CreateFloatAttr(b, std::get<double>(v)).Union());
    case AttrKind::Bool:
      return fbs::CreateAttr(b, n, fbs::AttrValue::BoolAttr, fbs::CreateBoolAttr(b, std::get<bool>(v)).Union());
    case AttrKind::String: {
      auto s = b.CreateString(std::get<std::string>(v));
      return fbs::CreateAttr(b, n, fbs::AttrValue::StringAttr, fbs::CreateStringAttr(b, s).Union());
    }
    case AttrKind::Ints: {
      auto vec = b.CreateVector(std::get<std::vector<int64_t>>(v));
      return fbs::CreateAttr(b, n, fbs::AttrValue::IntsAttr, fbs::CreateIntsAttr(b, vec).Union());
    }
    case AttrKind::Floats: {
      auto vec = b.CreateVector(std::get<std::vector<double>>(v));
      return fbs::CreateAttr(b, n, fbs::AttrValue::FloatsAttr, fbs::CreateFloatsAttr(b, vec).Union());
    }
    case AttrKind::DType:
      return fbs::CreateAttr(b, n, fbs::AttrValue::DTypeAttr,
                             fbs::CreateDTypeAttr(b, static_cast<uint8_t>(std::get<DType>(v))).Union());
  }
  throw CompileError("serialize: attribute '" + name + "' has an unknown kind");
}

}  // namespace

std::vector<std::byte> serialize_program(const Program& p) {
  if (p.dialect != kEdgeDialect)
    throw CompileError("serialize: expected an edge program, got the " + p.dialect + " dialect (run to_edge)");
  for (const auto& o : p.outputs)
    if (o.kind == OutputKind::BufferMutation)
      throw CompileError("serialize: output '" + o.arg + "' mutates buffer '" + o.target +
                         "'; the runtime does not support buffer mutation yet");

  FlatBufferBuilder b(1 << 16);
  std::map<const Value*, int32_t> slot_of;
  std::vector<Offset<fbs::ValueSlot>> slots;

  // Named data: every store entry a placeholder reads, once, ordered by key.
  std::map<std::string, const TensorData*> named;
  const auto placeholders = p.graph.placeholders();
  if (placeholders.size() != p.inputs.size())
    throw CompileError("serialize: placeholders and input specs disagree (run the verifier)");
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& spec = p.inputs[i];
    const Value* v = placeholders[i]->result();
    fbs::SlotKind kind = fbs::SlotKind::UserInput;
    Offset<flatbuffers::String> key;
    if (spec.kind != InputKind::UserInput) {
      const Store& store = p.store_for(spec);
      auto it = store.find(spec.target);
      if (it == store.end() || !it->second.bytes)
        throw CompileError("serialize: no data for target '" + spec.target + "' (placeholder %" + v->name() + ")");
      named[spec.target] = &it->second;
      kind = Program::requires_state(spec) ? fbs::SlotKind::State : fbs::SlotKind::Constant;
      key = b.CreateString(spec.target);
    }
    auto name = b.CreateString(v->name());
    auto type = write_type(b, v->type());
    slot_of[v] = static_cast<int32_t>(slots.size());
    slots.push_back(fbs::CreateValueSlot(b, name, type, kind, 0, 0, key));
  }

  std::vector<Offset<fbs::Instruction>> instructions;
  for (const Node* n : p.graph.calls()) {
    const OpInfo* op = find_op(n->op());
    if (!op || !op->core) throw CompileError("serialize: node " + n->label() + " uses '" + n->op() + "', which has no kernel");
    std::vector<int32_t> outs;
    for (size_t r = 0; r < n->num_results(); ++r) {
      const Value* v = n->result(r);
      auto plan = p.memory_plan.values.find(v->name());
      if (plan == p.memory_plan.values.end())
        throw CompileError("serialize: %" + v->name() + " has no place in the memory plan (run memory_plan)");
      auto name = b.CreateString(v->name());
      auto type = write_type(b, v->type());
      slot_of[v] = static_cast<int32_t>(slots.size());
      outs.push_back(slot_of[v]);
      slots.push_back(fbs::CreateValueSlot(b, name, type, fbs::SlotKind::Activation, plan->second.offset,
                                           plan->second.size, 0));
    }
    std::vector<int32_t> ins;
    for (const Value* v : n->inputs()) ins.push_back(slot_of.at(v));
    std::vector<Offset<fbs::Attr>> attrs;
    for (const auto& [name, value] : n->attrs().items()) attrs.push_back(write_attr(b, name, value));
    instructions.push_back(fbs::CreateInstruction(b, b.CreateString(op->name), -1, b.CreateVector(ins),
                                                  b.CreateVector(outs), b.CreateVector(attrs)));
  }

  std::vector<Offset<fbs::IoSpec>> inputs, outputs;
  for (size_t i = 0; i < placeholders.size(); ++i)
    if (p.inputs[i].kind == InputKind::UserInput)
      inputs.push_back(fbs::CreateIoSpec(b, b.CreateString(p.inputs[i].target), slot_of.at(placeholders[i]->result())));
  const Node* out = p.graph.output_node();
  if (!out) throw CompileError("serialize: the graph has no output node");
  for (size_t i = 0; i < p.outputs.size() && i < out->inputs().size(); ++i)
    outputs.push_back(fbs::CreateIoSpec(b, b.CreateString(p.outputs[i].target), slot_of.at(out->input(i))));

  std::vector<Offset<fbs::NamedData>> named_data;
  uint64_t data_size = 0;
  for (const auto& [key, data] : named) {
    const uint64_t offset = format::align_up(data_size, format::kDataAlignment);
    named_data.push_back(fbs::CreateNamedData(b, b.CreateString(key), offset, data->bytes->size(), write_type(b, data->type)));
    data_size = offset + data->bytes->size();
  }

  auto root = fbs::CreateProgram(b, b.CreateVector(slots), b.CreateVector(instructions), b.CreateVector(inputs),
                                 b.CreateVector(outputs), p.memory_plan.arena_size, b.CreateVector(named_data),
                                 b.CreateVector(std::vector<Offset<fbs::Delegate>>{}));
  b.Finish(root, "EDGC");

  format::Header h{};
  std::memcpy(h.magic, format::kMagic, sizeof h.magic);
  h.version = format::kVersion;
  h.header_size = format::kHeaderSize;
  h.flatbuffer_offset = format::kHeaderSize;
  h.flatbuffer_size = b.GetSize();
  h.data_offset = format::align_up(h.flatbuffer_offset + h.flatbuffer_size, format::kDataAlignment);
  h.data_size = data_size;
  h.file_size = h.data_offset + format::align_up(data_size, format::kDataAlignment);

  std::vector<std::byte> file(h.file_size);
  std::memcpy(file.data(), &h, sizeof h);
  std::memcpy(file.data() + h.flatbuffer_offset, b.GetBufferPointer(), b.GetSize());
  uint64_t offset = 0;
  for (const auto& [key, data] : named) {
    offset = format::align_up(offset, format::kDataAlignment);
    std::memcpy(file.data() + h.data_offset + offset, data->bytes->data(), data->bytes->size());
    offset += data->bytes->size();
  }
  return file;
}

}  // namespace edgec
