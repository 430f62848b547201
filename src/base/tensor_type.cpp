#include "base/tensor_type.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace edgec {

namespace {

// Interned names by index, in chunks that never move: a reader indexes
// without a lock while another thread interns.
class SymbolTable {
 public:
  static SymbolTable& get() {
    static SymbolTable* table = new SymbolTable();  // never destroyed: symbols outlive statics
    return *table;
  }
  uint32_t intern(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    const uint32_t id = count_.load(std::memory_order_relaxed);
    if (id >= kChunkSize * kMaxChunks) throw std::length_error("too many distinct symbolic dim names");
    auto& chunk = chunks_[id / kChunkSize];
    if (!chunk.load(std::memory_order_relaxed)) chunk.store(new std::string[kChunkSize], std::memory_order_release);
    std::string& slot = chunk.load(std::memory_order_relaxed)[id % kChunkSize];
    slot = std::string(name);
    ids_.emplace(std::string_view(slot), id);
    count_.store(id + 1, std::memory_order_release);
    return id;
  }
  const std::string& name(uint32_t id) const {
    return chunks_[id / kChunkSize].load(std::memory_order_acquire)[id % kChunkSize];
  }

 private:
  static constexpr uint32_t kChunkSize = 4096, kMaxChunks = 4096;
  SymbolTable() { intern({}); }  // id 0: the empty name
  std::mutex mutex_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::atomic<uint32_t> count_{0};
  std::unique_ptr<std::atomic<std::string*>[]> chunks_{new std::atomic<std::string*>[kMaxChunks]()};
};

}  // namespace

Symbol::Symbol(std::string_view name) : id_(name.empty() ? 0 : SymbolTable::get().intern(name)) {}

const std::string& Symbol::str() const { return SymbolTable::get().name(id_); }

std::string Dim::str() const {
  switch (kind) {
    case Kind::Static: return std::to_string(value);
    case Kind::Symbolic: return value < 0 ? symbol.str() : symbol.str() + "<=" + std::to_string(value);
    case Kind::Dynamic: return "?<=" + std::to_string(value);
  }
  return "?";
}

TensorType TensorType::of(DType d, const std::vector<int64_t>& shape) {
  TensorType t;
  t.dtype = d;
  for (int64_t s : shape) t.dims.push_back(Dim::fixed(s));
  return t;
}

bool TensorType::is_static() const {
  for (const Dim& d : dims)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> TensorType::static_shape() const {
  std::vector<int64_t> shape;
  shape.reserve(dims.size());
  for (const Dim& d : dims) shape.push_back(d.value);
  return shape;
}

namespace {

/// Overflow-checked element count and bytes of a type's bounded dims.
struct BoundedSize {
  bool unbounded = false;        ///< some dim has no upper bound (counted as 1)
  bool numel_overflows = false;  ///< the count exceeds INT64_MAX
  bool nbytes_overflows = false; ///< the bytes exceed INT64_MAX (also when the count does)
  int64_t numel = 1, nbytes = 0;
};

BoundedSize bounded_size(const TensorType& t) {
  BoundedSize s;
  for (const Dim& d : t.dims) {
    const auto ub = d.upper_bound();
    if (ub && *ub == 0) return BoundedSize{false, false, false, 0, 0};  // empty, however large the others
    if (!ub) s.unbounded = true;
  }
  for (const Dim& d : t.dims) {
    const auto ub = d.upper_bound();
    if (ub && !s.numel_overflows && __builtin_mul_overflow(s.numel, *ub, &s.numel)) s.numel_overflows = true;
  }
  s.nbytes_overflows = s.numel_overflows ||
                       __builtin_mul_overflow(s.numel, static_cast<int64_t>(dtype_size(t.dtype)), &s.nbytes);
  return s;
}

}  // namespace

std::optional<int64_t> TensorType::max_numel() const {
  const BoundedSize s = bounded_size(*this);
  if (s.unbounded || s.numel_overflows) return std::nullopt;
  return s.numel;
}

std::optional<int64_t> TensorType::max_nbytes() const {
  const BoundedSize s = bounded_size(*this);
  if (s.unbounded || s.nbytes_overflows) return std::nullopt;
  return s.nbytes;
}

bool TensorType::size_overflows() const { return bounded_size(*this).nbytes_overflows; }

std::string TensorType::str() const {
  std::string s(dtype_name(dtype));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += dims[i].str();
  }
  return s + "]";
}

}  // namespace edgec
