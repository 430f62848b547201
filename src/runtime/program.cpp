// Loading in layers (docs/architecture.md "Backends"). The header and the data segment are file
// only; everything from the flatbuffer identifier on (parse_table) is shared
// with delegate payloads, which are program tables too.
#include "runtime/program.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/regular_file.h"
#include "kernels/isa.h"
#include "serialize/format.h"
#include "serialize/program_generated.h"

namespace edgec::runtime {
namespace {

std::string u64(uint64_t v) { return std::to_string(v); }

Error bad(std::string detail) { return fail(Error::InvalidProgram, "invalid program file: " + detail); }

bool add_overflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_add_overflow(a, b, out); }

Error read_type(const fb::TensorInfo* t, const std::string& what, std::map<std::string, int>& symbol_ids,
                std::vector<std::string>& symbols, TypeInfo& out) {
  if (!t) return bad(what + " has no type");
  if (!is_valid_dtype(t->dtype())) return bad(what + " has an unknown dtype " + std::to_string(t->dtype()));
  out.dtype = static_cast<DType>(t->dtype());
  const auto* dims = t->dims();
  const size_t rank = dims ? dims->size() : 0;
  if (rank > static_cast<size_t>(kMaxRank))
    return bad(what + " has rank " + u64(rank) + ", more than the supported " + std::to_string(kMaxRank));
  out.dims.clear();
  for (size_t i = 0; i < rank; ++i) {
    const fb::Dim* d = dims->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (!d) return bad(what + " has a null dimension");
    DimInfo di;
    switch (d->kind()) {
      case fb::DimKind::Static: di.kind = DimInfo::Kind::Static; break;
      case fb::DimKind::Symbolic: di.kind = DimInfo::Kind::Symbolic; break;
      case fb::DimKind::Dynamic: di.kind = DimInfo::Kind::Dynamic; break;
      default: return bad(what + " has an unknown dimension kind");
    }
    di.value = d->value();
    if (di.kind != DimInfo::Kind::Symbolic && di.value < 0)
      return bad(what + " has a negative size " + std::to_string(di.value) + " in dim " + u64(i));
    if (di.kind == DimInfo::Kind::Symbolic) {
      if (!d->symbol()) return bad(what + " has a symbolic dim without a name");
      auto [it, inserted] = symbol_ids.emplace(d->symbol()->str(), static_cast<int>(symbols.size()));
      if (inserted) symbols.push_back(d->symbol()->str());
      di.symbol = it->second;
    }
    out.dims.push_back(di);
  }
  // Strides and byte sizes are computed in int64: a declared shape whose
  // element count (times the element size) does not fit is corrupt.
  int64_t bytes = static_cast<int64_t>(dtype_size(out.dtype));
  for (const DimInfo& d : out.dims)
    if (d.value > 0 && __builtin_mul_overflow(bytes, d.value, &bytes))
      return bad(what + " declares a shape whose size overflows 64 bits");
  return Error::Ok;
}

// Bytes the largest tensor of `t` takes, or nullopt if unbounded/overflowing.
std::optional<uint64_t> max_bytes(const TypeInfo& t) {
  uint64_t n = dtype_size(t.dtype);
  for (const DimInfo& d : t.dims) {
    if (d.value < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d.value), &n)) return std::nullopt;
  }
  return n;
}

// The values of a list attribute `name` (absent: empty).
template <typename T>
Error read_values(const flatbuffers::Vector<T>* v, const std::string& where, const std::string& name, Attrs& out) {
  // The verifier checks a vector's length field (4-byte aligned), not that
  // its 8-byte elements are aligned: a crafted file can misalign them.
  if (v && v->size() > 0 && reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) != 0)
    return bad(where + " attribute '" + name + "' has misaligned values");
  out.set(name, v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>{});
  return Error::Ok;
}

Error read_attr(const fb::Attr* a, const std::string& where, Attrs& out) {
  if (!a || !a->name()) return bad(where + " has an attribute without a name");
  const std::string name = a->name()->str();
  // The verifier accepts a union whose type is set and whose table is absent.
  if (!a->value()) return bad(where + " attribute '" + name + "' has no value");
  switch (a->value_type()) {
    case fb::AttrValue::IntAttr: out.set(name, a->value_as_IntAttr()->value()); break;
    case fb::AttrValue::FloatAttr: out.set(name, a->value_as_FloatAttr()->value()); break;
    case fb::AttrValue::BoolAttr: out.set(name, a->value_as_BoolAttr()->value()); break;
    case fb::AttrValue::StringAttr: {
      const auto* s = a->value_as_StringAttr()->value();
      out.set(name, s ? s->str() : std::string());
      break;
    }
    case fb::AttrValue::IntsAttr: return read_values(a->value_as_IntsAttr()->values(), where, name, out);
    case fb::AttrValue::FloatsAttr: return read_values(a->value_as_FloatsAttr()->values(), where, name, out);
    case fb::AttrValue::DTypeAttr: {
      const uint8_t raw = a->value_as_DTypeAttr()->value();
      if (!is_valid_dtype(raw)) return bad(where + ": attribute '" + name + "' has an unknown dtype");
      out.set(name, static_cast<DType>(raw));
      break;
    }
    default: return bad(where + ": attribute '" + name + "' has no value");
  }
  return Error::Ok;
}

}  // namespace

std::string TypeInfo::str(std::span<const std::string> symbols) const {
  std::string s(dtype_name(dtype));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    const DimInfo& d = dims[i];
    if (d.kind == DimInfo::Kind::Static) s += std::to_string(d.value);
    else if (d.kind == DimInfo::Kind::Dynamic) s += "?<=" + std::to_string(d.value);
    else {
      s += d.symbol >= 0 && static_cast<size_t>(d.symbol) < symbols.size() ? symbols[d.symbol] : "?";
      if (d.value >= 0) s += "<=" + std::to_string(d.value);
    }
  }
  return s + "]";
}

Program::~Program() {
  if (map_) munmap(map_, map_size_);
}

Result<std::unique_ptr<Program>> Program::load(const std::string& path, BackendList backends) {
  EDGEC_TRY(check_isa());  // EDGEC_ISA names a build this CPU can run (kernels/isa.h)
  // A FIFO must not block the open: refused, as is any other non-regular file.
  struct stat st {};
  std::string why;
  const int fd = open_regular_file(path, &st, &why);
  if (fd < 0) return fail(Error::AccessFailed, path + ": " + why);
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < format::kHeaderSize) {
    ::close(fd);
    return fail(Error::InvalidProgram, path + ": invalid program file: " + u64(size) +
                                           " bytes is shorter than the " + u64(format::kHeaderSize) + "-byte header");
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return fail(Error::AccessFailed, path + ": cannot map: " + std::strerror(errno));
  std::unique_ptr<Program> p(new Program());
  p->map_ = map;
  p->map_size_ = size;
  p->bytes_ = {static_cast<const std::byte*>(map), size};
  p->backends_ = backends;
  const Error err = p->parse();
  if (err != Error::Ok) {
    set_error_detail(path + ": " + error_detail());
    return err;
  }
  return p;
}

Result<std::unique_ptr<Program>> Program::load_from_bytes(std::span<const std::byte> bytes, BackendList backends) {
  EDGEC_TRY(check_isa());
  std::unique_ptr<Program> p(new Program());
  p->bytes_ = bytes;
  p->backends_ = backends;
  const Error err = p->parse();
  if (err != Error::Ok) return err;
  return p;
}

Result<std::unique_ptr<Program>> Program::load_payload(std::span<const std::byte> payload,
                                                       const NamedDataMap& named_data) {
  std::unique_ptr<Program> p(new Program());
  p->bytes_ = payload;
  const Error err = p->parse_payload(named_data);
  if (err != Error::Ok) return err;
  return p;
}

Error Program::parse() {
  // Header.
  if (bytes_.size() < format::kHeaderSize)
    return bad(u64(bytes_.size()) + " bytes is shorter than the " + u64(format::kHeaderSize) + "-byte header");
  if (reinterpret_cast<uintptr_t>(bytes_.data()) % 8 != 0) return bad("the file buffer is not 8-byte aligned");
  format::Header h;
  std::memcpy(&h, bytes_.data(), sizeof h);
  if (std::memcmp(h.magic, format::kMagic, sizeof h.magic) != 0) return bad("wrong magic (not an edgec program)");
  if (h.version != format::kVersion)
    return bad("version " + std::to_string(h.version) + ", this runtime reads version " + std::to_string(format::kVersion));
  if (h.header_size != format::kHeaderSize || h.flatbuffer_offset != format::kHeaderSize)
    return bad("unexpected header size or flatbuffer offset");
  if (h.file_size != bytes_.size())
    return bad("the header says " + u64(h.file_size) + " bytes, the file has " + u64(bytes_.size()) + " (truncated?)");
  uint64_t fb_end = 0, data_end = 0;
  if (add_overflows(h.flatbuffer_offset, h.flatbuffer_size, &fb_end) || fb_end > bytes_.size())
    return bad("the flatbuffer [" + u64(h.flatbuffer_offset) + ", +" + u64(h.flatbuffer_size) + ") is outside the file");
  if (h.data_offset % format::kDataAlignment != 0) return bad("the data segment offset " + u64(h.data_offset) + " is not 64-byte aligned");
  if (h.data_offset < fb_end) return bad("the data segment overlaps the flatbuffer");
  if (add_overflows(h.data_offset, h.data_size, &data_end) || data_end > bytes_.size())
    return bad("the data segment [" + u64(h.data_offset) + ", +" + u64(h.data_size) + ") is outside the file");
  return parse_table(bytes_.subspan(h.flatbuffer_offset, h.flatbuffer_size), bytes_.subspan(h.data_offset, h.data_size),
                     nullptr);
}

Error Program::parse_payload(const NamedDataMap& named) {
  // flatbuffers reads scalars in place; the writer puts payloads at 64-byte
  // offsets of an aligned data segment.
  if (reinterpret_cast<uintptr_t>(bytes_.data()) % 8 != 0) return bad("the delegate payload is not 8-byte aligned");
  return parse_table(bytes_, {}, &named);
}

namespace {

// Where a region of the data segment lies, for the check that no byte is in
// two regions; `what` names the region in the message.
struct Extent {
  uint64_t begin, end;
  std::string what;
};

}  // namespace

// The steps of Program::parse_table. Each validates one part of the table
// before anything uses it, and later steps rely on what earlier ones checked
// (slot indices on the slot count, instructions on the delegates), so they
// run in the order parse_table calls them.
struct Program::TableReader {
  Program& p;
  const fb::Program* root;
  std::span<const std::byte> data;    // A file's data segment; empty for a payload.
  const NamedDataMap* payload_named;  // Null for a file.
  std::vector<Extent> named_extents, payload_extents;
  std::map<std::string, int> symbol_ids;

  bool is_payload() const { return payload_named != nullptr; }
  // Where constant and state slots find their bytes: a payload's file's
  // named data, or the file's own.
  const NamedDataMap& named() const { return is_payload() ? *payload_named : p.named_data_; }
  size_t num_slots() const { return p.slots_.size(); }

  Error check_payload_has_no_files_parts() const;
  Error read_named_data();
  Error check_named_data_disjoint();
  Error read_slots();
  Error read_slot(size_t i, const fb::ValueSlot* v, std::string& previous_name);
  Error check_activation(const std::string& what, const Slot& s) const;
  Error read_constant_data(const std::string& what, const fb::ValueSlot* v, Slot& s) const;
  Error check_slot(int32_t idx, const std::string& where) const;
  Error read_delegates();
  Error read_delegate(size_t i, const fb::Delegate* d);
  Error check_regions_disjoint();
  Error read_instructions();
  Error read_instruction(size_t i, const fb::Instruction* in, const std::string& where, std::vector<Instruction>& into);
  Error read_operands(const fb::Instruction* in, const std::string& label, Instruction& out);
  Error read_regions(const fb::Instruction* in, const std::string& label, Instruction& out);
  Error read_slot_list(const flatbuffers::Vector<int32_t>* list, const std::string& label, std::span<const int32_t>& out);
  Error read_io(const flatbuffers::Vector<flatbuffers::Offset<fb::IoSpec>>* list, std::vector<IoSlot>& out,
                bool inputs) const;
  Error check_inputs_bound() const;
  Error check_dataflow() const;
  Error check_block_dataflow(std::span<const Instruction> block, const std::string& where,
                             std::vector<bool>& written, std::vector<int>& argument_uses) const;
};

namespace {

// Operands of `in` and every instruction of its regions, and the regions'
// slot lists: all go into the Program's one operand array.
size_t count_operands(const fb::Instruction* in) {
  if (!in) return 0;
  size_t n = (in->inputs() ? in->inputs()->size() : 0) + (in->outputs() ? in->outputs()->size() : 0);
  if (in->regions())
    for (const fb::Region* r : *in->regions()) {
      if (!r) continue;
      n += (r->inputs() ? r->inputs()->size() : 0) + (r->outputs() ? r->outputs()->size() : 0);
      if (r->instructions())
        for (const fb::Instruction* inner : *r->instructions()) n += count_operands(inner);
    }
  return n;
}

}  // namespace

Error Program::TableReader::check_payload_has_no_files_parts() const {
  if (root->named_data() && root->named_data()->size() > 0)
    return bad("a delegate payload carries named data; its constants must name the file's by key");
  if (root->delegates() && root->delegates()->size() > 0)
    return bad("a delegate payload has delegates of its own; payloads do not nest");
  return Error::Ok;
}

// Named data (files only): 64-aligned, inside the data segment, unique keys.
Error Program::TableReader::read_named_data() {
  const auto* nd = root->named_data();
  if (!nd) return Error::Ok;
  for (const fb::NamedData* e : *nd) {
    if (!e || !e->key()) return bad("a named-data entry has no key");
    const std::string key = e->key()->str();
    uint64_t end = 0;
    if (e->offset() % format::kDataAlignment != 0) return bad("named data '" + key + "' at offset " + u64(e->offset()) + " is not 64-byte aligned");
    if (add_overflows(e->offset(), e->size(), &end) || end > data.size())
      return bad("named data '" + key + "' [" + u64(e->offset()) + ", +" + u64(e->size()) + ") is outside the data segment of " + u64(data.size()) + " bytes");
    if (!p.named_data_.add(NamedDataEntry{key, data.data() + e->offset(), e->size()})) return bad("named data '" + key + "' appears twice");
    named_extents.push_back({e->offset(), end, "named data"});
  }
  return Error::Ok;
}

// No two named-data entries overlap. Sorts named_extents by offset.
Error Program::TableReader::check_named_data_disjoint() {
  std::sort(named_extents.begin(), named_extents.end(),
            [](const Extent& a, const Extent& b) { return std::pair(a.begin, a.end) < std::pair(b.begin, b.end); });
  for (size_t i = 1; i < named_extents.size(); ++i)
    if (named_extents[i].begin < named_extents[i - 1].end)
      return bad("two named-data entries overlap at offset " + u64(named_extents[i].begin));
  return Error::Ok;
}

Error Program::TableReader::read_slots() {
  const auto* values = root->values();
  p.slots_.resize(values ? values->size() : 0);
  std::string previous_name;  // Names are front-coded (program.fbs).
  for (size_t i = 0; i < p.slots_.size(); ++i)
    EDGEC_TRY(read_slot(i, values->Get(static_cast<flatbuffers::uoffset_t>(i)), previous_name));
  return Error::Ok;
}

Error Program::TableReader::read_slot(size_t i, const fb::ValueSlot* v, std::string& previous_name) {
  Slot& s = p.slots_[i];
  const std::string what = "value slot " + u64(i);
  if (!v) return bad(what + " is null");
  // Constants are written unnamed (their data key names them), and so are
  // a payload's slots.
  s.name = v->name() ? v->name()->str() : v->data_key() ? v->data_key()->str() : std::string();
  if (const size_t prefix = v->name_prefix(); prefix > 0) {
    if (!v->name() || prefix > previous_name.size())
      return bad(what + " says its name starts with " + u64(prefix) + " bytes of the previous slot's name, which has " +
                 u64(previous_name.size()));
    s.name = previous_name.substr(0, prefix) + s.name;
  }
  previous_name = s.name;
  EDGEC_TRY(read_type(v->type(), what + " (" + s.name + ")", symbol_ids, p.symbols_, s.type));
  switch (v->kind()) {
    case fb::SlotKind::UserInput: s.kind = SlotKind::UserInput; break;
    case fb::SlotKind::Constant: s.kind = SlotKind::Constant; break;
    case fb::SlotKind::State: s.kind = SlotKind::State; break;
    case fb::SlotKind::Activation: s.kind = SlotKind::Activation; break;
    case fb::SlotKind::Argument: s.kind = SlotKind::Argument; break;
    default: return bad(what + " has an unknown kind");
  }
  if (s.kind == SlotKind::Activation) {
    s.offset = v->offset();
    s.capacity = v->capacity();
    return check_activation(what, s);
  }
  if (s.kind == SlotKind::Constant || s.kind == SlotKind::State) return read_constant_data(what, v, s);
  return Error::Ok;
}

// An activation lies, aligned, inside the arena, and its capacity holds the
// largest tensor its type allows.
Error Program::TableReader::check_activation(const std::string& what, const Slot& s) const {
  uint64_t end = 0;
  if (add_overflows(s.offset, s.capacity, &end) || end > p.arena_size_)
    return bad(what + " (" + s.name + ") [" + u64(s.offset) + ", +" + u64(s.capacity) + ") is outside the arena of " + u64(p.arena_size_) + " bytes");
  if (s.offset % 64 != 0) return bad(what + " (" + s.name + ") offset " + u64(s.offset) + " is not 64-byte aligned");
  auto need = max_bytes(s.type);
  if (!need || *need > s.capacity)
    return bad(what + " (" + s.name + ") of type " + s.type.str(p.symbols_) + " needs more than its " + u64(s.capacity) + " bytes");
  return Error::Ok;
}

// A constant or state slot names data by key whose size is that of its
// static type.
Error Program::TableReader::read_constant_data(const std::string& what, const fb::ValueSlot* v, Slot& s) const {
  if (!v->data_key()) return bad(what + " (" + s.name + ") has no data key");
  const std::string key = v->data_key()->str();
  const NamedDataEntry* entry = named().find(key);
  // docs/semantics.md §6: a load-time error naming the slot and the key. In a
  // file it is an inconsistent file; in a payload the payload and the
  // file it came with disagree, which the backend contract calls NotFound.
  if (!entry)
    return fail(is_payload() ? Error::NotFound : Error::InvalidProgram,
                std::string(is_payload() ? "delegate payload" : "invalid program file") + ": constant slot '" +
                    s.name + "' names key '" + key + "', which has no data in the file");
  bool is_static = true;
  for (const DimInfo& d : s.type.dims) is_static &= d.kind == DimInfo::Kind::Static;
  auto need = max_bytes(s.type);
  if (!is_static || !need || *need != entry->size)
    return bad(what + " (" + s.name + ") of type " + s.type.str(p.symbols_) + " does not match its " +
               u64(entry->size) + " bytes of data");
  s.data = entry->data;
  s.key = key;
  return Error::Ok;
}

Error Program::TableReader::check_slot(int32_t idx, const std::string& where) const {
  if (idx < 0 || static_cast<size_t>(idx) >= num_slots())
    return bad(where + " refers to value slot " + std::to_string(idx) + " of " + u64(num_slots()));
  return Error::Ok;
}

// Delegates (files only): payload inside the data segment, slot indices
// valid, and a runtime backend for the id that can run here.
Error Program::TableReader::read_delegates() {
  const auto* ds = root->delegates();
  if (!ds) return Error::Ok;
  for (size_t i = 0; i < ds->size(); ++i) EDGEC_TRY(read_delegate(i, ds->Get(static_cast<flatbuffers::uoffset_t>(i))));
  return Error::Ok;
}

Error Program::TableReader::read_delegate(size_t i, const fb::Delegate* d) {
  const std::string where = "delegate " + u64(i);
  if (!d || !d->backend() || d->backend()->size() == 0) return bad(where + " has no backend id");
  DelegateInfo info;
  info.backend_id = d->backend()->str();
  uint64_t end = 0;
  if (d->payload_offset() % format::kDataAlignment != 0)
    return bad(where + " (" + info.backend_id + ") payload at offset " + u64(d->payload_offset()) + " is not 64-byte aligned");
  if (add_overflows(d->payload_offset(), d->payload_size(), &end) || end > data.size())
    return bad(where + " (" + info.backend_id + ") payload [" + u64(d->payload_offset()) + ", +" + u64(d->payload_size()) +
               ") is outside the data segment of " + u64(data.size()) + " bytes");
  info.payload = data.subspan(d->payload_offset(), d->payload_size());
  if (d->payload_size() > 0) payload_extents.push_back({d->payload_offset(), end, where + " (" + info.backend_id + ") payload"});
  for (const auto* list : {d->inputs(), d->outputs()})
    if (list)
      for (int32_t idx : *list) EDGEC_TRY(check_slot(idx, where + " (" + info.backend_id + ")"));
  for (auto [list, out] : {std::pair{d->operators(), &info.operators}, std::pair{d->constants(), &info.constants}})
    if (list)
      for (const flatbuffers::String* str : *list) {
        if (!str) return bad(where + " (" + info.backend_id + ") has a null operator or constant name");
        out->push_back(str->str());
      }
  for (const Backend* b : p.backends_)
    if (b->id() == info.backend_id) info.backend = b;
  if (!info.backend && p.target_ != kHostTarget)
    return fail(Error::DelegateMissing,
                where + " needs backend '" + info.backend_id + "': the program was compiled for " +
                    std::string(target_name(p.target_)) + " and this is an " + std::string(target_name(kHostTarget)) +
                    " runtime, which does not have it; compile the model again with --target " +
                    std::string(target_name(kHostTarget)) + " (the default on an " +
                    std::string(target_name(kHostTarget)) + " machine)");
  if (!info.backend)
    return fail(Error::DelegateMissing, where + " needs backend '" + info.backend_id + "', which this runtime does not have");
  if (!info.backend->is_available())
    return fail(Error::DelegateMissing, where + " needs backend '" + info.backend_id + "', which is not available on this machine");
  p.delegates_.push_back(std::move(info));
  return Error::Ok;
}

// Payloads share the data segment with named data: no byte is in two
// regions (a payload aliasing a constant is a corrupt or crafted file).
Error Program::TableReader::check_regions_disjoint() {
  if (payload_extents.empty()) return Error::Ok;
  std::vector<Extent> all = std::move(payload_extents);
  for (const Extent& e : named_extents)
    if (e.end > e.begin) all.push_back(e);
  std::sort(all.begin(), all.end(), [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].begin < all[i - 1].end)
      return bad(all[i].what + " [" + u64(all[i].begin) + ", " + u64(all[i].end) + ") overlaps " + all[i - 1].what +
                 " [" + u64(all[i - 1].begin) + ", " + u64(all[i - 1].end) + ")");
  return Error::Ok;
}

// Instructions. Their operands go into one array, reserved first so that
// the spans into it stay valid.
Error Program::TableReader::read_instructions() {
  const auto* ins = root->instructions();
  if (!ins) return Error::Ok;
  size_t operands = 0;
  for (const fb::Instruction* in : *ins) operands += count_operands(in);
  p.operands_.reserve(operands);
  p.instructions_.reserve(ins->size());
  for (size_t i = 0; i < ins->size(); ++i)
    EDGEC_TRY(read_instruction(i, ins->Get(static_cast<flatbuffers::uoffset_t>(i)), "instruction " + u64(i), p.instructions_));
  return Error::Ok;
}

Error Program::TableReader::read_instruction(size_t, const fb::Instruction* in, const std::string& where,
                                             std::vector<Instruction>& into) {
  if (!in || !in->op()) return bad(where + " has no operator");
  Instruction out;
  out.op = in->op()->str();
  out.delegate = in->delegate();
  if (out.delegate < -1) return bad(where + " has delegate index " + std::to_string(out.delegate));
  if (out.is_delegate_call()) {
    if (!out.op.empty()) return bad(where + " names both operator '" + out.op + "' and delegate " + std::to_string(out.delegate));
    if (static_cast<size_t>(out.delegate) >= p.delegates_.size())
      return bad(where + " calls delegate " + std::to_string(out.delegate) + ", but the program has " + u64(p.delegates_.size()));
    if (&into != &p.instructions_) return bad(where + " calls a delegate inside a region");
  } else if (out.op == "cond" || out.op == "loop") {
    out.control = out.op == "cond" ? Control::Cond : Control::Loop;
  } else {
    out.kernel = find_kernel(out.op);
    if (!out.kernel) return fail(Error::NotFound, where + ": operator '" + out.op + "' has no kernel in this runtime");
  }
  const std::string label = where + " (" + (out.is_delegate_call() ? "call_delegate" : out.op) + ")";
  EDGEC_TRY(read_operands(in, label, out));
  if (in->attrs())
    for (const fb::Attr* a : *in->attrs()) EDGEC_TRY(read_attr(a, label, out.attrs));
  if (in->refusals())
    for (const fb::Refusal* r : *in->refusals()) {
      if (!r || !r->backend() || !r->reason()) return bad(label + " has a refusal without a backend or reason");
      out.refusals.push_back({r->backend()->str(), r->reason()->str()});
    }
  if (out.control != Control::None) {
    EDGEC_TRY(read_regions(in, label, out));
  } else if (in->regions() && in->regions()->size() > 0) {
    return bad(label + " has regions; only cond and loop do");
  }
  into.push_back(std::move(out));
  return Error::Ok;
}

Error Program::TableReader::read_slot_list(const flatbuffers::Vector<int32_t>* list, const std::string& label,
                                           std::span<const int32_t>& out) {
  const size_t first = p.operands_.size();
  if (list)
    for (int32_t idx : *list) {
      EDGEC_TRY(check_slot(idx, label));
      p.operands_.push_back(idx);
    }
  out = std::span<const int32_t>(p.operands_).subspan(first);
  return Error::Ok;
}

// A control-flow instruction's regions: their number, their placeholders
// (Argument slots of the dtype and rank of what binds them) and outputs
// against the instruction's operands, and their instructions.
Error Program::TableReader::read_regions(const fb::Instruction* in, const std::string& label, Instruction& out) {
  const size_t expected = out.control == Control::Cond ? 2 : 1;
  const size_t count = in->regions() ? in->regions()->size() : 0;
  if (count != expected) return bad(label + " has " + u64(count) + " region(s); expected " + u64(expected));
  const bool loop = out.control == Control::Loop;
  if (out.inputs.size() < (loop ? 2u : 1u)) return bad(label + " has too few operands");
  int64_t carried = 0;
  if (loop) {
    carried = out.attrs.has("carried") ? out.attrs.get_int("carried") : -1;
    if (carried < 0 || static_cast<size_t>(carried) > out.inputs.size() - 2 || static_cast<size_t>(carried) > out.outputs.size())
      return bad(label + " says " + std::to_string(carried) + " carried values, which its operands do not have");
    out.carried = static_cast<int32_t>(carried);
    out.loop_index = static_cast<int32_t>(p.num_loops_++);
  }
  // What each region placeholder is bound to: a cond's captures; a loop's
  // iteration (i64) and condition (bool), then its carried and captures.
  auto slot_type = [&](int32_t idx) { return std::pair{p.slots_[idx].type.dtype, p.slots_[idx].type.dims.size()}; };
  std::vector<std::pair<DType, size_t>> bound;
  if (loop) bound = {{DType::Int64, 0}, {DType::Bool, 0}};
  for (size_t k = loop ? 2 : 1; k < out.inputs.size(); ++k) bound.push_back(slot_type(out.inputs[k]));
  // And what each output is: a cond's results; a loop's condition, carried
  // values and stacked rows (a stacked result has one more dim).
  std::vector<std::pair<DType, size_t>> returned;
  if (loop) returned.push_back({DType::Bool, 0});
  for (size_t k = 0; k < out.outputs.size(); ++k) {
    auto [dtype, rank] = slot_type(out.outputs[k]);
    const bool stacked = loop && k >= static_cast<size_t>(carried);
    if (stacked && rank == 0) return bad(label + " stacks into a rank-0 result");
    returned.push_back({dtype, stacked ? rank - 1 : rank});
  }
  out.regions.resize(count);
  for (size_t r = 0; r < count; ++r) {
    const fb::Region* fr = in->regions()->Get(static_cast<flatbuffers::uoffset_t>(r));
    const std::string where = label + " region " + u64(r);
    if (!fr) return bad(where + " is null");
    Region& region = out.regions[r];
    EDGEC_TRY(read_slot_list(fr->inputs(), where, region.inputs));
    EDGEC_TRY(read_slot_list(fr->outputs(), where, region.outputs));
    if (region.inputs.size() != bound.size() || region.outputs.size() != returned.size())
      return bad(where + " has " + u64(region.inputs.size()) + " placeholder(s) and " + u64(region.outputs.size()) +
                 " output(s); expected " + u64(bound.size()) + " and " + u64(returned.size()));
    for (size_t k = 0; k < region.inputs.size(); ++k) {
      const Slot& s = p.slots_[region.inputs[k]];
      if (s.kind != SlotKind::Argument) return bad(where + " placeholder " + u64(k) + " is not an argument slot");
      if (slot_type(region.inputs[k]) != bound[k])
        return bad(where + " placeholder " + u64(k) + " (" + s.name + ") is " + s.type.str(p.symbols_) +
                   ", which does not match the dtype and rank of what binds it");
    }
    for (size_t k = 0; k < region.outputs.size(); ++k)
      if (slot_type(region.outputs[k]) != returned[k])
        return bad(where + " output " + u64(k) + " (" + p.slots_[region.outputs[k]].name +
                   ") does not match the dtype and rank of the result it gives");
    const auto* ins = fr->instructions();
    if (ins) {
      region.instructions.reserve(ins->size());
      for (size_t i = 0; i < ins->size(); ++i)
        EDGEC_TRY(read_instruction(i, ins->Get(static_cast<flatbuffers::uoffset_t>(i)), where + " instruction " + u64(i),
                                   region.instructions));
    }
  }
  return Error::Ok;
}

// Appends the instruction's inputs and outputs, each a valid slot (outputs
// activations), to the operand array and points `out` at them.
Error Program::TableReader::read_operands(const fb::Instruction* in, const std::string& label, Instruction& out) {
  const size_t first_input = p.operands_.size();
  if (in->inputs())
    for (int32_t idx : *in->inputs()) {
      EDGEC_TRY(check_slot(idx, label));
      p.operands_.push_back(idx);
    }
  const size_t first_output = p.operands_.size();
  if (in->outputs())
    for (int32_t idx : *in->outputs()) {
      EDGEC_TRY(check_slot(idx, label));
      if (p.slots_[idx].kind != SlotKind::Activation) return bad(label + " writes to a non-activation slot");
      p.operands_.push_back(idx);
    }
  out.inputs = std::span<const int32_t>(p.operands_).subspan(first_input, first_output - first_input);
  out.outputs = std::span<const int32_t>(p.operands_).subspan(first_output);
  return Error::Ok;
}

// The signature: named, unique, valid slots; inputs bind user-input slots.
Error Program::TableReader::read_io(const flatbuffers::Vector<flatbuffers::Offset<fb::IoSpec>>* list,
                                    std::vector<IoSlot>& out, bool inputs) const {
  std::set<std::string> names;
  if (!list) return Error::Ok;
  for (const fb::IoSpec* io : *list) {
    if (!io || !io->name()) return bad(std::string(inputs ? "an input" : "an output") + " has no name");
    IoSlot s{io->name()->str(), io->slot()};
    EDGEC_TRY(check_slot(s.slot, (inputs ? "input '" : "output '") + s.name + "'"));
    if (inputs && p.slots_[s.slot].kind != SlotKind::UserInput) return bad("input '" + s.name + "' is not a user-input slot");
    if (!names.insert(s.name).second) return bad(std::string(inputs ? "input" : "output") + " name '" + s.name + "' appears twice");
    out.push_back(std::move(s));
  }
  return Error::Ok;
}

// Every user-input slot is bound by exactly one input.
Error Program::TableReader::check_inputs_bound() const {
  std::vector<int> input_refs(num_slots(), 0);
  for (const IoSlot& in : p.inputs_) ++input_refs[static_cast<size_t>(in.slot)];
  for (size_t i = 0; i < num_slots(); ++i)
    if (p.slots_[i].kind == SlotKind::UserInput && input_refs[i] != 1)
      return bad("user-input slot " + u64(i) + " (" + p.slots_[i].name + ") is bound by " + std::to_string(input_refs[i]) + " inputs, expected 1");
  return Error::Ok;
}

// Every activation is written by exactly one instruction before anything
// reads it. Otherwise a kernel could read a slot that has no memory behind
// it. A region's argument slots count as written inside it (its
// instruction binds them), and each is the placeholder of one region.
Error Program::TableReader::check_dataflow() const {
  std::vector<bool> written(num_slots(), false);
  std::vector<int> argument_uses(num_slots(), 0);
  EDGEC_TRY(check_block_dataflow(p.instructions_, "instruction ", written, argument_uses));
  for (size_t i = 0; i < num_slots(); ++i)
    if (p.slots_[i].kind == SlotKind::Argument && argument_uses[i] != 1)
      return bad("argument slot " + u64(i) + " (" + p.slots_[i].name + ") is the placeholder of " +
                 std::to_string(argument_uses[i]) + " regions, expected 1");
  for (const IoSlot& out : p.outputs_)
    if (p.slots_[static_cast<size_t>(out.slot)].kind == SlotKind::Activation && !written[static_cast<size_t>(out.slot)])
      return bad("output '" + out.name + "' reads value slot " + std::to_string(out.slot) + ", which nothing writes");
  return Error::Ok;
}

Error Program::TableReader::check_block_dataflow(std::span<const Instruction> block, const std::string& where,
                                                 std::vector<bool>& written, std::vector<int>& argument_uses) const {
  auto readable = [&](int32_t idx) {
    const SlotKind kind = p.slots_[static_cast<size_t>(idx)].kind;
    return (kind != SlotKind::Activation && kind != SlotKind::Argument) || written[static_cast<size_t>(idx)];
  };
  for (size_t i = 0; i < block.size(); ++i) {
    const Instruction& in = block[i];
    const std::string op = in.is_delegate_call() ? std::string("call_delegate") : in.op;
    for (int32_t idx : in.inputs)
      if (!readable(idx))
        return bad(where + u64(i) + " (" + op + ") reads value slot " + std::to_string(idx) + " before any instruction writes it");
    for (size_t r = 0; r < in.regions.size(); ++r) {
      const Region& region = in.regions[r];
      for (int32_t idx : region.inputs) {
        ++argument_uses[static_cast<size_t>(idx)];
        written[static_cast<size_t>(idx)] = true;
      }
      EDGEC_TRY(check_block_dataflow(region.instructions, where + u64(i) + " (" + op + ") region " + u64(r) + " instruction ",
                                     written, argument_uses));
      for (int32_t idx : region.outputs)
        if (!readable(idx))
          return bad(where + u64(i) + " (" + op + ") region " + u64(r) + " returns value slot " + std::to_string(idx) +
                     ", which nothing in it writes");
      // A region's values are not readable after it (nor in the other branch).
      for (int32_t idx : region.inputs) written[static_cast<size_t>(idx)] = false;
    }
    for (int32_t idx : in.outputs) {
      if (written[static_cast<size_t>(idx)]) return bad("value slot " + std::to_string(idx) + " is written twice");
      written[static_cast<size_t>(idx)] = true;
    }
  }
  return Error::Ok;
}

Error Program::parse_table(std::span<const std::byte> table, std::span<const std::byte> data,
                           const NamedDataMap* payload_named) {
  // Flatbuffer structure.
  const auto* fb_bytes = reinterpret_cast<const uint8_t*>(table.data());
  if (table.size() < 8 || !flatbuffers::BufferHasIdentifier(fb_bytes, "EDGC"))
    return bad("the flatbuffer lacks the EDGC identifier");
  flatbuffers::Verifier verifier(fb_bytes, table.size(), /*max_depth=*/64, /*max_tables=*/10000000);
  if (!fb::VerifyProgramBuffer(verifier)) return bad("the flatbuffer failed verification");
  TableReader r{*this, fb::GetProgram(fb_bytes), data, payload_named, {}, {}, {}};
  arena_size_ = r.root->arena_size();
  const std::optional<Target> target = target_from_file(r.root->target());
  if (!target) return bad("the program's target " + std::to_string(r.root->target()) + " is none edgec writes");
  target_ = *target;

  // Named data and delegates are a file's; a payload's bytes live in its
  // file's, and its constants resolve there.
  if (r.is_payload()) {
    EDGEC_TRY(r.check_payload_has_no_files_parts());
  } else {
    EDGEC_TRY(r.read_named_data());
  }
  EDGEC_TRY(r.check_named_data_disjoint());
  EDGEC_TRY(r.read_slots());
  if (!r.is_payload()) EDGEC_TRY(r.read_delegates());
  EDGEC_TRY(r.check_regions_disjoint());
  EDGEC_TRY(r.read_instructions());
  EDGEC_TRY(r.read_io(r.root->inputs(), inputs_, true));
  EDGEC_TRY(r.read_io(r.root->outputs(), outputs_, false));
  EDGEC_TRY(r.check_inputs_bound());
  return r.check_dataflow();
}

}  // namespace edgec::runtime
