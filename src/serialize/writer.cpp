// The writer: the program's graph, signature and memory plan become one
// fb::Program table (write_program_table, shared with backends whose payload
// is a program, so the file and the payload cannot drift apart); tensor
// bytes and payloads go to the data segment after it, each 64-aligned.
#include "serialize/writer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <tuple>
#include <variant>

#include "base/diagnostic.h"
#include "ir/control_flow.h"
#include "ir/operator.h"
#include <bit>

#include "serialize/format.h"
#include "serialize/program_generated.h"

namespace edgec {
namespace {

namespace fbs = ::edgec::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// Every string and every type is written once per table and referred to
// from wherever it recurs (flatbuffers tables may share children): a model
// of a thousand small operators repeats a few dozen types, operator and
// attribute names, and the file should hold its weights, not its
// bookkeeping (issue 6: file size within 2% + 64 KiB of the weights).
/// b.CreateSharedString, found by hash: flatbuffers keeps its shared
/// strings in a set ordered by their bytes, so a file of 10^5 distinct slot
/// names compared each new one with a dozen others. Every shared string of
/// one table goes through one of these (mixing the two would write a string
/// twice).
class SharedStrings {
 public:
  explicit SharedStrings(FlatBufferBuilder& b) : b_(b) {}
  Offset<flatbuffers::String> operator()(std::string_view s) {
    if (auto it = offsets_.find(s); it != offsets_.end()) return it->second;
    const auto offset = b_.CreateString(s.data(), s.size());
    offsets_.emplace(std::string(s), offset);
    return offset;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  FlatBufferBuilder& b_;
  std::unordered_map<std::string, Offset<flatbuffers::String>, Hash, std::equal_to<>> offsets_;
};

Offset<fbs::TensorInfo> write_type(FlatBufferBuilder& b, SharedStrings& strings, const TensorType& t) {
  std::vector<Offset<fbs::Dim>> dims;
  for (const Dim& d : t.dims) {
    auto sym = d.kind == Dim::Kind::Symbolic ? strings(d.symbol.str()) : Offset<flatbuffers::String>();
    dims.push_back(fbs::CreateDim(b, static_cast<fbs::DimKind>(d.kind), d.value, sym));
  }
  const auto dim_vector = b.CreateVector(dims);
  return fbs::CreateTensorInfo(b, static_cast<uint8_t>(t.dtype), dim_vector);
}

Offset<fbs::Attr> write_attr(FlatBufferBuilder& b, SharedStrings& strings, const std::string& name, const AttrValue& v);

/// A key equal for equal attribute values (floats by their bits).
std::string attr_key(const std::string& name, const AttrValue& v) {
  std::string k = name + "=" + std::to_string(v.index()) + ":";
  auto bits = [](double d) { return std::to_string(std::bit_cast<uint64_t>(d)); };
  switch (attr_kind(v)) {
    case AttrKind::Int: return k + std::to_string(std::get<int64_t>(v));
    case AttrKind::Float: return k + bits(std::get<double>(v));
    case AttrKind::Bool: return k + (std::get<bool>(v) ? "1" : "0");
    case AttrKind::String: return k + std::to_string(std::get<std::string>(v).size()) + ":" + std::get<std::string>(v);
    case AttrKind::Ints:
      for (int64_t x : std::get<std::vector<int64_t>>(v)) k += std::to_string(x) + ",";
      return k;
    case AttrKind::Floats:
      for (double x : std::get<std::vector<double>>(v)) k += bits(x) + ",";
      return k;
    case AttrKind::DType: return k + std::to_string(static_cast<int>(std::get<DType>(v)));
  }
  return k;
}

/// An instruction's attribute list, written once per distinct list (and
/// each attribute once per distinct name and value).
class AttrTable {
 public:
  AttrTable(FlatBufferBuilder& b, SharedStrings& strings) : b_(b), strings_(strings) {}
  Offset<flatbuffers::Vector<Offset<fbs::Attr>>> operator()(const Attrs& attrs) {
    if (attrs.items().empty()) return 0;
    std::string list_key;
    std::vector<Offset<fbs::Attr>> offsets;
    for (const auto& [name, value] : attrs.items()) {
      const std::string key = attr_key(name, value);
      auto [it, inserted] = attrs_.try_emplace(key);
      if (inserted) it->second = write_attr(b_, strings_, name, value);
      offsets.push_back(it->second);
      list_key += std::to_string(key.size()) + ":" + key;
    }
    auto [it, inserted] = lists_.try_emplace(list_key);
    if (inserted) it->second = b_.CreateVector(offsets);
    return it->second;
  }

 private:
  FlatBufferBuilder& b_;
  SharedStrings& strings_;
  std::map<std::string, Offset<fbs::Attr>> attrs_;
  std::map<std::string, Offset<flatbuffers::Vector<Offset<fbs::Attr>>>> lists_;
};

/// write_type, once per distinct type in one builder.
class TypeTable {
 public:
  TypeTable(FlatBufferBuilder& b, SharedStrings& strings) : b_(b), strings_(strings) {}
  Offset<fbs::TensorInfo> operator()(const TensorType& t) {
    // Keyed by everything write_type writes (the type itself).
    auto [it, inserted] = written_.try_emplace(t);
    if (inserted) it->second = write_type(b_, strings_, t);
    return it->second;
  }

 private:
  struct Hash {
    size_t operator()(const TensorType& t) const {
      size_t h = std::hash<int>()(static_cast<int>(t.dtype));
      auto mix = [&h](uint64_t v) { h ^= std::hash<uint64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
      for (const Dim& d : t.dims) {
        mix(static_cast<uint64_t>(d.value));
        mix(static_cast<uint64_t>(d.kind));
        if (d.kind == Dim::Kind::Symbolic) mix(std::hash<std::string>()(d.symbol.str()));
      }
      return h;
    }
  };
  FlatBufferBuilder& b_;
  SharedStrings& strings_;
  std::unordered_map<TensorType, Offset<fbs::TensorInfo>, Hash> written_;
};

Offset<fbs::Attr> write_attr(FlatBufferBuilder& b, SharedStrings& strings, const std::string& name, const AttrValue& v) {
  auto n = strings(name);
  switch (attr_kind(v)) {
    case AttrKind::Int:
      return fbs::CreateAttr(b, n, fbs::AttrValue::IntAttr, fbs::CreateIntAttr(b, std::get<int64_t>(v)).Union());
    case AttrKind::Float:
      return fbs::CreateAttr(b, n, fbs::AttrValue::FloatAttr, fbs::CreateFloatAttr(b, std::get<double>(v)).Union());
    case AttrKind::Bool:
      return fbs::CreateAttr(b, n, fbs::AttrValue::BoolAttr, fbs::CreateBoolAttr(b, std::get<bool>(v)).Union());
    case AttrKind::String: {
      auto s = strings(std::get<std::string>(v));
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
// program and its delegates, docs/semantics.md §6), then each delegate's payload.
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

// Writes one fb::Program table in steps that share the builder, the shared
// strings, types and attribute lists, and the slots written so far. The
// order of the builder calls decides the file's bytes: the steps make them
// in the order write() calls the steps.
struct TableWriter {
  // A slot's name as written: front-coded against the slot before.
  struct SlotName {
    Offset<flatbuffers::String> tail;
    uint16_t prefix = 0;
  };
  using IoSpecs = std::vector<Offset<fbs::IoSpec>>;

  FlatBufferBuilder& b;
  const Program& p;
  const std::string& ctx;
  const DataLayout* data;  // Null for a payload.
  SharedStrings strings{b};
  TypeTable types{b, strings};
  AttrTable attr_lists{b, strings};
  std::string previous;  // The name the loader will have read for the slot before.
  std::unordered_map<const Value*, int32_t> slot_of;
  std::vector<Offset<fbs::ValueSlot>> slots;
  std::vector<Offset<fbs::Instruction>> instructions;
  // The slots each delegate is called with, for its Delegate entry.
  std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> delegate_slots;

  TableWriter(FlatBufferBuilder& builder, const Program& program, const std::string& context, const DataLayout* layout)
      : b(builder), p(program), ctx(context), data(layout), delegate_slots(program.delegates.size()) {
    slot_of.reserve(p.graph.size());
  }

  Offset<fbs::Program> write();
  SlotName slot_name(const Value* v);
  void write_placeholder_slots();
  void write_instruction(const Node* n);
  std::vector<Offset<fbs::Instruction>> write_block(const Graph& g);
  Offset<fbs::Region> write_region(const Graph& g);
  std::vector<int32_t> write_result_slots(const Node* n);
  std::vector<Offset<fbs::Refusal>> write_refusals(const Node* n);
  void write_signature(IoSpecs& inputs, IoSpecs& outputs);
  Offset<fbs::Delegate> write_delegate(size_t i);
};

// A payload's slots go unnamed: only its backend reads it (errors name
// slots by index), and the names would be most of its bytes. A file's slot
// names are front-coded (program.fbs): the exporter's names share long
// scopes with the slot before ("unet_up_modules.1.1_conv2_block_
// block.2_2_Mul_output_0" after "..._2_Tanh_output_0"), and the tails
// repeat, so each is a shared string.
TableWriter::SlotName TableWriter::slot_name(const Value* v) {
  if (!data) {
    previous.clear();
    return SlotName{};
  }
  const std::string& name = v->name();
  size_t k = 0;
  while (k < name.size() && k < previous.size() && k < UINT16_MAX && name[k] == previous[k]) ++k;
  previous = name;
  return SlotName{strings(name.substr(k)), static_cast<uint16_t>(k)};
}

// One slot per placeholder; a constant or state slot names its data by
// target, and a target gets exactly one slot (docs/semantics.md §6: a backend
// resolving slots by name could not tell two of them apart).
void TableWriter::write_placeholder_slots() {
  std::unordered_map<std::string_view, const Value*> placeholder_of_target;  // views of p.inputs' targets
  const auto placeholders = p.graph.placeholders();
  placeholder_of_target.reserve(placeholders.size());
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& spec = p.inputs[i];
    const Value* v = placeholders[i]->result();
    fbs::SlotKind kind = fbs::SlotKind::UserInput;
    Offset<flatbuffers::String> key;
    if (spec.kind != InputKind::UserInput) {
      auto [it, inserted] = placeholder_of_target.emplace(spec.target, v);
      if (!inserted)
        throw CompileError(ctx + ": target '" + spec.target + "' already has a slot (%" + it->second->name() +
                           "); second placeholder %" + v->name());
      (void)stored_data(p, spec, v, ctx);
      kind = Program::requires_state(spec) ? fbs::SlotKind::State : fbs::SlotKind::Constant;
      key = strings(spec.target);
    }
    // A constant is named by its data key.
    SlotName name;
    if (kind == fbs::SlotKind::UserInput) name = slot_name(v);
    else previous = spec.target;
    auto type = types(v->type());
    slot_of[v] = static_cast<int32_t>(slots.size());
    slots.push_back(fbs::CreateValueSlot(b, name.tail, type, kind, 0, 0, key, name.prefix));
  }
}

// A region: its placeholders become Argument slots, then its calls.
Offset<fbs::Region> TableWriter::write_region(const Graph& g) {
  std::vector<int32_t> ins, outs;
  for (const Node* ph : g.placeholders()) {
    const Value* v = ph->result();
    auto name = slot_name(v);
    auto type = types(v->type());
    slot_of[v] = static_cast<int32_t>(slots.size());
    ins.push_back(slot_of[v]);
    slots.push_back(fbs::CreateValueSlot(b, name.tail, type, fbs::SlotKind::Argument, 0, 0, 0, name.prefix));
  }
  std::vector<Offset<fbs::Instruction>> block = write_block(g);
  const Node* out = g.output_node();
  if (!out) throw CompileError(ctx + ": a region has no output node");
  for (const Value* v : out->inputs()) outs.push_back(slot_of.at(v));
  // Every sub-object before the table, one statement each: the order in
  // which a call's arguments are evaluated is unspecified (GCC evaluates
  // them right to left on x86-64, left to right on aarch64), and it decides
  // where each lands in the buffer; the file must be the same bytes on
  // every host (docs/architecture.md, "Targets").
  const auto block_vector = b.CreateVector(block);
  const auto in_vector = b.CreateVector(ins);
  const auto out_vector = b.CreateVector(outs);
  return fbs::CreateRegion(b, block_vector, in_vector, out_vector);
}

// The instructions of `g`'s calls, in order (a region's within its call).
std::vector<Offset<fbs::Instruction>> TableWriter::write_block(const Graph& g) {
  std::vector<Offset<fbs::Instruction>> saved = std::move(instructions);
  instructions.clear();
  for (const Node* n : g.calls()) write_instruction(n);
  std::vector<Offset<fbs::Instruction>> block = std::move(instructions);
  instructions = std::move(saved);
  return block;
}

void TableWriter::write_instruction(const Node* n) {
  const bool is_delegate = n->is_delegate_call();
  const bool is_control = n->is_control_flow();
  const OpInfo* op = is_delegate || is_control ? nullptr : op_of(*n);
  if (is_delegate && !data)
    throw CompileError(ctx + ": node " + n->label() + " calls a delegate; a delegate program cannot call delegates");
  if (!is_delegate && !is_control && (!op || !op->core))
    throw CompileError(ctx + ": node " + n->label() + " uses '" + n->op() + "', which has no kernel");
  std::vector<Offset<fbs::Region>> regions;
  for (size_t r = 0; r < n->num_regions(); ++r) regions.push_back(write_region(n->region(r)));
  std::vector<int32_t> outs = write_result_slots(n);
  std::vector<int32_t> ins;
  for (const Value* v : n->inputs()) ins.push_back(slot_of.at(v));
  std::vector<Offset<fbs::Refusal>> refusals = write_refusals(n);
  Offset<flatbuffers::Vector<Offset<fbs::Attr>>> attrs = 0;
  int32_t delegate = -1;
  if (is_delegate) {
    // The delegate index is the instruction's own field, not an attribute.
    delegate = delegate_index(p, n, ctx);
    delegate_slots[static_cast<size_t>(delegate)] = {ins, outs};
  } else if (n->is_loop()) {
    // The file's loop says how many of its operands are carried (the IR's
    // operand groups do; the file's operands are flat).
    Attrs with_count = n->attrs();
    with_count.set("carried", static_cast<int64_t>(control_operands(*n).carried.size()));
    attrs = attr_lists(with_count);
  } else {
    attrs = attr_lists(n->attrs());
  }
  const std::string name = is_delegate ? std::string() : is_control ? n->op() : std::string(op->name);
  // Sub-objects one statement each, in a fixed order (see write_region).
  const auto op_name = strings(name);
  const auto in_vector = b.CreateVector(ins);
  const auto out_vector = b.CreateVector(outs);
  const auto refusal_vector = refusals.empty() ? 0 : b.CreateVector(refusals);
  const auto region_vector = regions.empty() ? 0 : b.CreateVector(regions);
  instructions.push_back(fbs::CreateInstruction(b, op_name, delegate, in_vector, out_vector, attrs, refusal_vector,
                                                region_vector));
}

// An activation slot per result, where the memory plan puts it.
std::vector<int32_t> TableWriter::write_result_slots(const Node* n) {
  std::vector<int32_t> outs;
  for (size_t r = 0; r < n->num_results(); ++r) {
    const Value* v = n->result(r);
    auto plan = p.memory_plan.values.find(v->name());
    if (plan == p.memory_plan.values.end())
      throw CompileError(ctx + ": %" + v->name() + " has no place in the memory plan (run memory_plan)");
    auto name = slot_name(v);
    auto type = types(v->type());
    slot_of[v] = static_cast<int32_t>(slots.size());
    outs.push_back(slot_of[v]);
    slots.push_back(fbs::CreateValueSlot(b, name.tail, type, fbs::SlotKind::Activation, plan->second.offset,
                                         plan->second.size, 0, name.prefix));
  }
  return outs;
}

// Sorted, not in partitioner priority order: the file must not depend on
// the order partitioners ran in (docs/semantics.md §5.6).
std::vector<Offset<fbs::Refusal>> TableWriter::write_refusals(const Node* n) {
  std::vector<Refusal> sorted_refusals = n->refusals();
  std::sort(sorted_refusals.begin(), sorted_refusals.end(), [](const Refusal& a, const Refusal& b) {
    return std::tie(a.backend, a.reason) < std::tie(b.backend, b.reason);
  });
  std::vector<Offset<fbs::Refusal>> refusals;
  for (const Refusal& r : sorted_refusals) {
    const auto backend = strings(r.backend);
    const auto reason = strings(r.reason);
    refusals.push_back(fbs::CreateRefusal(b, backend, reason));
  }
  return refusals;
}

void TableWriter::write_signature(IoSpecs& inputs, IoSpecs& outputs) {
  const auto placeholders = p.graph.placeholders();
  for (size_t i = 0; i < placeholders.size(); ++i)
    if (p.inputs[i].kind == InputKind::UserInput)
      inputs.push_back(fbs::CreateIoSpec(b, strings(p.inputs[i].target), slot_of.at(placeholders[i]->result())));
  const Node* out = p.graph.output_node();
  if (!out) throw CompileError(ctx + ": the graph has no output node");
  for (size_t i = 0; i < p.outputs.size() && i < out->inputs().size(); ++i)
    outputs.push_back(fbs::CreateIoSpec(b, strings(p.outputs[i].target), slot_of.at(out->input(i))));
}

// Delegate `i`'s entry: its backend, payload, slots and what it took.
Offset<fbs::Delegate> TableWriter::write_delegate(size_t i) {
  const Program& d = *p.delegates[i].program;
  std::vector<Offset<flatbuffers::String>> ops, constants;
  for (const Node* n : d.graph.calls()) {
    const OpInfo* op = op_of(*n);
    ops.push_back(strings(op ? op->name : n->op()));
  }
  for (const InputSpec& spec : d.inputs)
    if (spec.kind != InputKind::UserInput) constants.push_back(strings(spec.target));
  const auto& payload = data->payloads[i];
  const auto backend = strings(p.delegates[i].backend);
  const auto in_vector = b.CreateVector(delegate_slots[i].first);
  const auto out_vector = b.CreateVector(delegate_slots[i].second);
  const auto op_vector = b.CreateVector(ops);
  const auto constant_vector = b.CreateVector(constants);
  return fbs::CreateDelegate(b, backend, payload.offset, payload.bytes.size(), in_vector, out_vector, op_vector,
                             constant_vector);
}

Offset<fbs::Program> TableWriter::write() {
  check_serializable(p, ctx);
  write_placeholder_slots();
  for (const Node* n : p.graph.calls()) write_instruction(n);
  IoSpecs inputs, outputs;
  write_signature(inputs, outputs);
  std::vector<Offset<fbs::NamedData>> named_data;
  std::vector<Offset<fbs::Delegate>> delegates;
  if (data) {
    for (const auto& e : data->named) {
      const auto key = strings(e.key);
      const auto type = types(e.data->type);
      named_data.push_back(fbs::CreateNamedData(b, key, e.offset, e.data->bytes->size(), type));
    }
    for (size_t i = 0; i < p.delegates.size(); ++i) delegates.push_back(write_delegate(i));
  }
  const auto slot_vector = b.CreateVector(slots);
  const auto instruction_vector = b.CreateVector(instructions);
  const auto input_vector = b.CreateVector(inputs);
  const auto output_vector = b.CreateVector(outputs);
  const auto named_data_vector = b.CreateVector(named_data);
  const auto delegate_vector = b.CreateVector(delegates);
  return fbs::CreateProgram(b, slot_vector, instruction_vector, input_vector, output_vector, p.memory_plan.arena_size,
                            named_data_vector, delegate_vector, static_cast<uint8_t>(p.target));
}

// The fb::Program table of `p`. With `data` (a whole file) the table lists
// the named data and the delegates; without (a payload) it has neither, and
// a delegate call is an error: payloads do not nest.
Offset<fbs::Program> write_program_table(FlatBufferBuilder& b, const Program& p, const std::string& ctx,
                                         const DataLayout* data) {
  return TableWriter(b, p, ctx, data).write();
}

bool same_data(const TensorData& a, const TensorData& b) {
  return a.bytes == b.bytes || (a.type == b.type && *a.bytes == *b.bytes);
}

// Lays out the data segment. Payloads are built here, before the owning
// table, because its Delegate entries record their offsets and sizes.
DataLayout layout_data(const Program& p, const PayloadFn& make_payload) {
  const std::string ctx = "serialize";
  // target -> data, and the first program that reads it (names live in `readers`)
  std::map<std::string_view, std::pair<const TensorData*, size_t>> named;
  std::vector<std::string> readers;
  auto collect = [&](const Program& prog, const std::string& who) {
    readers.push_back(who);
    const auto placeholders = prog.graph.placeholders();
    if (placeholders.size() != prog.inputs.size())
      throw CompileError(ctx + ": " + who + ": placeholders and input specs disagree (run the verifier)");
    for (size_t i = 0; i < placeholders.size(); ++i) {
      const InputSpec& spec = prog.inputs[i];
      if (spec.kind == InputKind::UserInput) continue;
      const TensorData& d = stored_data(prog, spec, placeholders[i]->result(), ctx + ": " + who);
      auto [it, inserted] = named.emplace(spec.target, std::make_pair(&d, readers.size() - 1));
      // Stored once, read by all: two programs that disagree on a target's
      // bytes cannot both be right.
      if (!inserted && !same_data(*it->second.first, d))
        throw CompileError(ctx + ": target '" + spec.target + "' has different data in " + readers[it->second.second] +
                           " and " + who + "; each target is stored once");
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
    layout.named.push_back({std::string(key), entry.first, offset});
    layout.size = offset + entry.first->bytes->size();
  }
  for (size_t i = 0; i < p.delegates.size(); ++i) {
    const Delegate& d = p.delegates[i];
    DataLayout::Payload payload;
    payload.bytes = make_payload(d, i);
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

std::vector<std::byte> write_program_file(const Program& p, const PayloadFn& make_payload) {
  check_serializable(p, "serialize");
  const DataLayout layout = layout_data(p, make_payload);
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
