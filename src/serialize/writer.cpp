// The writer: the program's graph, signature and memory plan become one
// fb::Program table (write_program_table, shared with backends whose payload
// is a program, so the file and the payload cannot drift apart); tensor
// bytes and payloads go to the data segment after it, each 64-aligned.
#include "serialize/writer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <variant>

#include "ir/diagnostic.h"
#include "ir/operator.h"
#include "lowering/backend.h"
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


// The data segment: every target's bytes once (the union over the owning
// program and its delegates, SEMANTICS 6), then each delegate's payload.
// Offsets are from the segment start.
struct DataLayout {
  struct Named {
    std::string key;
    const TensorData* data = nullptr;
    uint64_t offset = 0;
  };
  struct Payload {
    std::vector<std::byte> bytes;
    uint64_t offset = 0;
  };
  std::vector<Named> named;       // sorted by key
  std::vector<Payload> payloads;  // by delegate index
  uint64_t size = 0;
};

void check_serializable(const Program& p, const std::string& ctx) {
  if (p.dialect != kEdgeDialect)
    throw CompileError(ctx + ": expected an edge program, got the " + p.dialect + " dialect (run to_edge)");
  for (const auto& o : p.outputs)
    if (o.kind == OutputKind::BufferMutation)
      throw CompileError(ctx + ": output '" + o.arg + "' mutates buffer '" + o.target +
                         "'; the runtime does not support buffer mutation yet");
  if (p.graph.placeholders().size() != p.inputs.size())
    throw CompileError(ctx + ": placeholders and input specs disagree (run the verifier)");
}

// The stored data of a non-user input, or a CompileError naming the target.
const TensorData& stored_data(const Program& p, const InputSpec& spec, const Value* v, const std::string& ctx) {
  const Store& store = p.store_for(spec);
  auto it = store.find(spec.target);
  if (it == store.end() || !it->second.bytes)
    throw CompileError(ctx + ": no data for target '" + spec.target + "' (placeholder %" + v->name() + ")");
  return it->second;
}

// The delegate index a call_delegate node names, checked against `p`.
int32_t delegate_index(const Program& p, const Node* n, const std::string& ctx) {
  const AttrValue* attr = n->attrs().find("delegate");
  const int64_t* index = attr ? std::get_if<int64_t>(attr) : nullptr;
  if (!index || *index < 0 || *index >= static_cast<int64_t>(p.delegates.size()))
    throw CompileError(ctx + ": call_delegate " + n->label() + " does not name one of the program's " +
                       std::to_string(p.delegates.size()) + " delegate(s)");
  return static_cast<int32_t>(*index);
}

// The fb::Program table of `p`. With `data` (a whole file) the table lists
// the named data and the delegates; without (a payload) it has neither, and
// a delegate call is an error: payloads do not nest.
Offset<fbs::Program> write_program_table(FlatBufferBuilder& b, const Program& p, const std::string& ctx,
                                         const DataLayout* data) {
  check_serializable(p, ctx);
  std::map<const Value*, int32_t> slot_of;
  std::vector<Offset<fbs::ValueSlot>> slots;

  // One slot per placeholder; a constant or state slot names its data by
  // target, and a target gets exactly one slot (SEMANTICS 6: a backend
  // resolving slots by name could not tell two of them apart).
  std::map<std::string, std::string> placeholder_of_target;
  const auto placeholders = p.graph.placeholders();
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& spec = p.inputs[i];
    const Value* v = placeholders[i]->result();
    fbs::SlotKind kind = fbs::SlotKind::UserInput;
    Offset<flatbuffers::String> key;
    if (spec.kind != InputKind::UserInput) {
      auto [it, inserted] = placeholder_of_target.emplace(spec.target, v->name());
      if (!inserted)
        throw CompileError(ctx + ": target '" + spec.target + "' already has a slot (%" + it->second +
                           "); second placeholder %" + v->name());
      (void)stored_data(p, spec, v, ctx);
      kind = Program::requires_state(spec) ? fbs::SlotKind::State : fbs::SlotKind::Constant;
      key = b.CreateString(spec.target);
    }
    auto name = b.CreateString(v->name());
    auto type = write_type(b, v->type());
    slot_of[v] = static_cast<int32_t>(slots.size());
    slots.push_back(fbs::CreateValueSlot(b, name, type, kind, 0, 0, key));
  }

  std::vector<Offset<fbs::Instruction>> instructions;
  // The slots each delegate is called with, for its Delegate entry.
  std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> delegate_slots(p.delegates.size());
  for (const Node* n : p.graph.calls()) {
    const bool is_delegate = n->is_delegate_call();
    const OpInfo* op = is_delegate ? nullptr : find_op(n->op());
    if (is_delegate && !data)
      throw CompileError(ctx + ": node " + n->label() + " calls a delegate; a delegate program cannot call delegates");
    if (!is_delegate && (!op || !op->core))
      throw CompileError(ctx + ": node " + n->label() + " uses '" + n->op() + "', which has no kernel");
    std::vector<int32_t> outs;
    for (size_t r = 0; r < n->num_results(); ++r) {
      const Value* v = n->result(r);
      auto plan = p.memory_plan.values.find(v->name());
      if (plan == p.memory_plan.values.end())
        throw CompileError(ctx + ": %" + v->name() + " has no place in the memory plan (run memory_plan)");
      auto name = b.CreateString(v->name());
      auto type = write_type(b, v->type());
      slot_of[v] = static_cast<int32_t>(slots.size());
      outs.push_back(slot_of[v]);
      slots.push_back(fbs::CreateValueSlot(b, name, type, fbs::SlotKind::Activation, plan->second.offset,
                                           plan->second.size, 0));
    }
    std::vector<int32_t> ins;
    for (const Value* v : n->inputs()) ins.push_back(slot_of.at(v));
    // Sorted, not in partitioner priority order: the file must not depend
    // on the order partitioners ran in (SEMANTICS 5.6).
    std::vector<Refusal> sorted_refusals = n->refusals();
    std::sort(sorted_refusals.begin(), sorted_refusals.end(), [](const Refusal& a, const Refusal& b) {
      return std::tie(a.backend, a.reason) < std::tie(b.backend, b.reason);
    });
    std::vector<Offset<fbs::Refusal>> refusals;
    for (const Refusal& r : sorted_refusals)
      refusals.push_back(fbs::CreateRefusal(b, b.CreateString(r.backend), b.CreateString(r.reason)));
    std::vector<Offset<fbs::Attr>> attrs;
    int32_t delegate = -1;
    if (is_delegate) {
      // The delegate index is the instruction's own field, not an attribute.
      delegate = delegate_index(p, n, ctx);
      delegate_slots[static_cast<size_t>(delegate)] = {ins, outs};
    } else {
      for (const auto& [name, value] : n->attrs().items()) attrs.push_back(write_attr(b, name, value));
    }
    instructions.push_back(fbs::CreateInstruction(b, b.CreateString(is_delegate ? std::string() : op->name), delegate,
                                                  b.CreateVector(ins), b.CreateVector(outs), b.CreateVector(attrs),
                                                  b.CreateVector(refusals)));
  }

  std::vector<Offset<fbs::IoSpec>> inputs, outputs;
  for (size_t i = 0; i < placeholders.size(); ++i)
    if (p.inputs[i].kind == InputKind::UserInput)
      inputs.push_back(fbs::CreateIoSpec(b, b.CreateString(p.inputs[i].target), slot_of.at(placeholders[i]->result())));
  const Node* out = p.graph.output_node();
  if (!out) throw CompileError(ctx + ": the graph has no output node");
  for (size_t i = 0; i < p.outputs.size() && i < out->inputs().size(); ++i)
    outputs.push_back(fbs::CreateIoSpec(b, b.CreateString(p.outputs[i].target), slot_of.at(out->input(i))));

  std::vector<Offset<fbs::NamedData>> named_data;
  std::vector<Offset<fbs::Delegate>> delegates;
  if (data) {
    for (const auto& e : data->named)
      named_data.push_back(fbs::CreateNamedData(b, b.CreateString(e.key), e.offset, e.data->bytes->size(),
                                                write_type(b, e.data->type)));
    for (size_t i = 0; i < p.delegates.size(); ++i) {
      const Program& d = *p.delegates[i].program;
      std::vector<Offset<flatbuffers::String>> ops, constants;
      for (const Node* n : d.graph.calls()) {
        const OpInfo* op = find_op(n->op());
        ops.push_back(b.CreateString(op ? op->name : n->op()));
      }
      for (const InputSpec& spec : d.inputs)
        if (spec.kind != InputKind::UserInput) constants.push_back(b.CreateString(spec.target));
      const auto& payload = data->payloads[i];
      delegates.push_back(fbs::CreateDelegate(b, b.CreateString(p.delegates[i].backend), payload.offset,
                                              payload.bytes.size(), b.CreateVector(delegate_slots[i].first),
                                              b.CreateVector(delegate_slots[i].second), b.CreateVector(ops),
                                              b.CreateVector(constants)));
    }
  }
  return fbs::CreateProgram(b, b.CreateVector(slots), b.CreateVector(instructions), b.CreateVector(inputs),
                            b.CreateVector(outputs), p.memory_plan.arena_size, b.CreateVector(named_data),
                            b.CreateVector(delegates));
}

bool same_data(const TensorData& a, const TensorData& b) {
  return a.bytes == b.bytes || (a.type == b.type && *a.bytes == *b.bytes);
}

// Lays out the data segment. Payloads are built here, before the owning
// table, because its Delegate entries record their offsets and sizes.
DataLayout layout_data(const Program& p) {
  const std::string ctx = "serialize";
  std::map<std::string, std::pair<const TensorData*, std::string>> named;  // target -> data, first reader
  auto collect = [&](const Program& prog, const std::string& who) {
    const auto placeholders = prog.graph.placeholders();
    if (placeholders.size() != prog.inputs.size())
      throw CompileError(ctx + ": " + who + ": placeholders and input specs disagree (run the verifier)");
    for (size_t i = 0; i < placeholders.size(); ++i) {
      const InputSpec& spec = prog.inputs[i];
      if (spec.kind == InputKind::UserInput) continue;
      const TensorData& d = stored_data(prog, spec, placeholders[i]->result(), ctx + ": " + who);
      auto [it, inserted] = named.emplace(spec.target, std::make_pair(&d, who));
      // Stored once, read by all: two programs that disagree on a target's
      // bytes cannot both be right.
      if (!inserted && !same_data(*it->second.first, d))
        throw CompileError(ctx + ": target '" + spec.target + "' has different data in " + it->second.second + " and " +
                           who + "; each target is stored once");
    }
  };
  collect(p, "the owning program");
  for (size_t i = 0; i < p.delegates.size(); ++i) {
    const Delegate& d = p.delegates[i];
    const std::string who = "delegate " + std::to_string(i) + " (" + d.backend + ")";
    if (!d.program) throw CompileError(ctx + ": " + who + " has no program");
    collect(*d.program, who);
  }

  DataLayout layout;
  for (const auto& [key, entry] : named) {
    const uint64_t offset = format::align_up(layout.size, format::kDataAlignment);
    layout.named.push_back({key, entry.first, offset});
    layout.size = offset + entry.first->bytes->size();
  }
  for (size_t i = 0; i < p.delegates.size(); ++i) {
    const Delegate& d = p.delegates[i];
    const BackendCompiler* compiler = find_backend_compiler(d.backend);
    if (!compiler) {
      std::string ids;
      for (const auto& id : backend_compiler_ids()) ids += (ids.empty() ? "" : ", ") + id;
      throw CompileError(ctx + ": delegate " + std::to_string(i) + " uses backend '" + d.backend +
                         "', which this edgec does not have (built in: " + ids + ")");
    }
    DataLayout::Payload payload;
    payload.bytes = compiler->preprocess(*d.program);
    payload.offset = format::align_up(layout.size, format::kDataAlignment);
    layout.size = payload.offset + payload.bytes.size();
    layout.payloads.push_back(std::move(payload));
  }
  return layout;
}

}  // namespace

std::vector<std::byte> serialize_program_table(const Program& program, const std::string& context) {
  FlatBufferBuilder b(1 << 14);
  b.Finish(write_program_table(b, program, context, nullptr), "EDGC");
  const auto* begin = reinterpret_cast<const std::byte*>(b.GetBufferPointer());
  return std::vector<std::byte>(begin, begin + b.GetSize());
}

std::vector<std::byte> serialize_program(const Program& p) {
  check_serializable(p, "serialize");
  const DataLayout layout = layout_data(p);
  FlatBufferBuilder b(1 << 16);
  b.Finish(write_program_table(b, p, "serialize", &layout), "EDGC");

  format::Header h{};
  std::memcpy(h.magic, format::kMagic, sizeof h.magic);
  h.version = format::kVersion;
  h.header_size = format::kHeaderSize;
  h.flatbuffer_offset = format::kHeaderSize;
  h.flatbuffer_size = b.GetSize();
  h.data_offset = format::align_up(h.flatbuffer_offset + h.flatbuffer_size, format::kDataAlignment);
  h.data_size = layout.size;
  h.file_size = h.data_offset + format::align_up(layout.size, format::kDataAlignment);

  std::vector<std::byte> file(h.file_size);
  std::memcpy(file.data(), &h, sizeof h);
  std::memcpy(file.data() + h.flatbuffer_offset, b.GetBufferPointer(), b.GetSize());
  std::byte* segment = file.data() + h.data_offset;
  for (const auto& e : layout.named)
    if (!e.data->bytes->empty()) std::memcpy(segment + e.offset, e.data->bytes->data(), e.data->bytes->size());
  for (const auto& payload : layout.payloads)
    if (!payload.bytes.empty()) std::memcpy(segment + payload.offset, payload.bytes.data(), payload.bytes.size());
  return file;
}

}  // namespace edgec
