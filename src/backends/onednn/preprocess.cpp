// The onednn payload: the delegate program as a program-file table
// (program.fbs) without tensor bytes, exactly as the reference backend's.
// Primitives depend on the machine (ISA, thread count), so they are built
// at init from this portable description rather than at compile time; the
// constants are resolved by key against the file's named data (docs/semantics.md §6),
// so weights are stored once and mapped without a copy.
//
// The one machine-dependent part is how convolution weights are stored
// (prepare_constants): init would reorder them into the blocked layout
// oneDNN chooses, which costs a copy of every weight and fresh memory at
// each load. (The int8 weights of qlinear_conv and qlinear_matmul too,
// with oneDNN's compensation: stored flat, see prepare_constants.) The compiler builds the delegate once, as the runtime does on
// this machine, and stores each weight that only such convolutions read
// (in this delegate, and no other program of the file) in the layout they
// chose, saying it in the convolutions' attributes. On a
// machine whose oneDNN picks the same layout, init reads the weights in
// place; on another it reorders from the stored layout (still correct).
#include <algorithm>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

#include "backends/onednn/compiler.h"
#include "backends/onednn/runtime.h"
#include "serialize/writer.h"

namespace edgec {
namespace {

// The delegate's constants and state by target, as a runtime NamedDataMap:
// 64-byte aligned copies, as the file's mapped named data is.
class ProgramData final : public runtime::NamedDataMap {
 public:
  explicit ProgramData(const Program& p) {
    for (const Store* store : {&p.constants, &p.state})
      for (const auto& [key, data] : *store) {
        if (!data.bytes) continue;
        const size_t n = data.bytes->size();
        auto& buf = storage_.emplace_back(n + 64);
        auto* at = reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(buf.data()) + 63) / 64 * 64);
        std::copy(data.bytes->begin(), data.bytes->end(), at);
        entries_[key] = runtime::NamedDataEntry{key, at, n};
      }
  }
  const runtime::NamedDataEntry* find(std::string_view key) const override {
    auto it = entries_.find(std::string(key));
    return it == entries_.end() ? nullptr : &it->second;
  }

 private:
  std::vector<std::vector<std::byte>> storage_;
  std::map<std::string, runtime::NamedDataEntry> entries_;
};

// oneDNN's name for the layout: dims as letters from the largest stride to
// the smallest, capitals for blocked ones, then the blocks ("ABcd8b8a").
std::string layout_tag(const runtime::onednn::ChosenWeights& w) {
  std::vector<size_t> order(w.strides.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return w.strides[a] > w.strides[b]; });
  std::string tag;
  for (size_t i : order) {
    const bool blocked = std::find(w.block_dims.begin(), w.block_dims.end(), static_cast<int64_t>(i)) != w.block_dims.end();
    tag += static_cast<char>((blocked ? 'A' : 'a') + i);
  }
  for (size_t b = 0; b < w.blocks.size(); ++b)
    tag += std::to_string(w.blocks[b]) + static_cast<char>('a' + w.block_dims[b]);
  return tag;
}

bool same_layout(const runtime::onednn::ChosenWeights& a, const runtime::onednn::ChosenWeights& b) {
  return a.strides == b.strides && a.blocks == b.blocks && a.block_dims == b.block_dims &&
         a.extra == b.extra && a.operand == b.operand;
}

}  // namespace

std::vector<std::byte> OnednnCompiler::preprocess(const Program& delegate) const {
  // The table writer reports a second placeholder for one target as the
  // build error docs/semantics.md §6 asks for.
  return serialize_program_table(delegate, id() + ": delegate builder");
}

void OnednnCompiler::prepare_constants(Program& delegate, const std::set<std::string>& shared) const {
  const std::vector<std::byte> table = preprocess(delegate);
  const ProgramData data(delegate);
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto chosen = runtime::onednn::chosen_weight_layouts(table, data, threads);
  // A delegate this machine cannot build keeps its plain constants: the
  // runtime reports why at load. One without convolutions has nothing to
  // store otherwise.
  if (!chosen.ok() || chosen->empty()) return;
  // Per weights key, the convolutions (by instruction) that chose a layout.
  std::map<std::string, std::map<size_t, runtime::onednn::ChosenWeights*>> by_key;
  for (auto& w : *chosen) by_key[w.key][w.instruction] = &w;
  const std::vector<Node*> calls = delegate.graph.calls();
  std::unordered_map<const Node*, size_t> instruction_of;
  for (size_t i = 0; i < calls.size(); ++i) instruction_of[calls[i]] = i;

  const std::vector<Node*> placeholders = delegate.graph.placeholders();
  for (size_t i = 0; i < placeholders.size() && i < delegate.inputs.size(); ++i) {
    InputSpec& spec = delegate.inputs[i];
    auto found = by_key.find(spec.target);
    if (spec.kind != InputKind::Constant || found == by_key.end() || shared.count(spec.target)) continue;
    // Every reader must be one of those convolutions, reading the constant
    // as its weights, all in the same layout: the plain bytes go unread.
    const auto& convs = found->second;
    runtime::onednn::ChosenWeights& first = *convs.begin()->second;
    const std::span<const Use> uses = placeholders[i]->result()->uses();
    bool all = !uses.empty();
    for (const Use& u : uses) {
      auto at = instruction_of.find(u.user);
      auto conv = at == instruction_of.end() ? convs.end() : convs.find(at->second);
      all = all && static_cast<size_t>(u.input_index) == first.operand && conv != convs.end() && same_layout(*conv->second, first);
    }
    // int8 weights (qlinear_conv, qlinear_matmul) take oneDNN's
    // compensation along: stored flat, as i8 [the bytes oneDNN's layout
    // has], their own shape in the calls' weights_shape attribute.
    const bool int8 = !first.extra.empty();
    auto plain = delegate.constants.find(spec.target);
    if (!all || plain == delegate.constants.end() || !plain->second.bytes ||
        (!int8 && plain->second.bytes->size() != first.bytes.size()))
      continue;
    const TensorType plain_type = plain->second.type;
    std::vector<int64_t> shape;
    for (const Dim& d : plain_type.dims) shape.push_back(d.value);
    const std::string key = spec.target + "@onednn:" + layout_tag(first) + (int8 ? "+s8" : "");
    TensorType type = plain_type;
    if (int8) type = TensorType(DType::Int8, {Dim::fixed(static_cast<int64_t>(first.bytes.size()))});
    TensorData stored{type, std::make_shared<const std::vector<std::byte>>(std::move(first.bytes))};
    delegate.constants.erase(plain);
    delegate.constants[key] = std::move(stored);
    spec.target = key;
    if (int8) placeholders[i]->result()->set_type(type);
    for (const Use& u : uses) {
      Attrs& a = u.user->attrs();
      a.set("weights_strides", first.strides);
      a.set("weights_blocks", first.blocks);
      a.set("weights_block_dims", first.block_dims);
      if (int8) {
        a.set("weights_shape", shape);
        a.set("weights_extra", first.extra);
      }
    }
  }
}

}  // namespace edgec
