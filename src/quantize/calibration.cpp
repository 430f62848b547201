// Calibration (internal.h): the samples of a calibration folder, a model
// compiled by edgec with extra outputs and run on them, and the range of
// each tensor the runs give (min-max, or a percentile of a histogram).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>

#include "base/diagnostic.h"
#include "compiler/pipeline.h"
#include "quantize/internal.h"

namespace edgec::quantize::detail {

std::vector<std::string> list_samples(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw driver::UsageError("--calibration '" + dir + "' is not a folder (expected a folder of .npz files, one per " +
                             "sample, keyed by the model's input names)");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".npz" && entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  if (ec) throw CompileError("--calibration '" + dir + "': cannot list the folder: " + ec.message());
  if (files.empty())
    throw driver::UsageError("--calibration '" + dir + "' holds no .npz file (expected one per sample, keyed by the " +
                             "model's input names, as np.savez writes them)");
  std::sort(files.begin(), files.end());
  return files;
}

Sample read_sample(const std::string& path) { return Sample{path, io::read_npz(path)}; }

namespace {
void free_aligned(std::byte* p) { ::operator delete[](p, std::align_val_t(64)); }
}  // namespace

Runner::Runner(onnx::ModelProto model, const std::vector<std::string>& extra_outputs, const std::string& what,
               const driver::ImportFlags& flags, const std::string& backends)
    : what_(what), bytes_(nullptr, free_aligned) {
  std::set<std::string> present;
  for (const auto& o : model.graph().output()) present.insert(o.name());
  for (const auto& name : extra_outputs)
    if (present.insert(name).second) model.mutable_graph()->add_output()->set_name(name);
  std::string serialized;
  if (!model.SerializeToString(&serialized)) throw CompileError(what + ": cannot serialize the model");
  std::unique_ptr<Program> program =
      driver::compile_onnx_bytes(std::as_bytes(std::span(serialized)), what, LowerOptions{}, flags, backends);
  const std::vector<std::byte> file = serialize_program(*program);
  // 64-byte aligned, as a mapped file is, so constants are read in place.
  bytes_.reset(static_cast<std::byte*>(::operator new[](std::max<size_t>(file.size(), 1), std::align_val_t(64))));
  std::memcpy(bytes_.get(), file.data(), file.size());
  auto loaded = runtime::Program::load_from_bytes(std::span<const std::byte>(bytes_.get(), file.size()));
  if (!loaded.ok()) driver::runtime_error("cannot load " + what + " compiled", loaded.error());
  program_ = std::move(*loaded);
  auto method = runtime::Method::create(*program_, 1);
  if (!method.ok()) driver::runtime_error("cannot prepare " + what + " compiled", method.error());
  method_ = std::move(*method);
  for (size_t i = 0; i < program_->outputs().size(); ++i) by_name_[program_->outputs()[i].name] = i;
}

Runner::~Runner() = default;

void Runner::run(const Sample& sample) {
  bind(sample);
  execute();
}

void Runner::bind(const Sample& sample) {
  std::vector<driver::NamedTensor> inputs;
  for (const auto& a : sample.arrays) inputs.push_back({a.name, a.view()});
  driver::bind_inputs(*program_, *method_, inputs, sample.path);
  bound_ = sample.path;
}

void Runner::execute() {
  const Error err = method_->execute();
  if (err != Error::Ok) driver::runtime_error(what_ + " on " + bound_, err);
}

size_t Runner::num_outputs() const { return program_->outputs().size(); }
const std::string& Runner::output_name(size_t i) const { return program_->outputs()[i].name; }
const Tensor& Runner::output(size_t i) const { return method_->output(i); }
int64_t Runner::find_output(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : static_cast<int64_t>(it->second);
}

namespace {

constexpr int kBins = 2048;

// Calls f(value) for each element of a float32 tensor, strided or not.
template <typename F>
void for_each_float(const Tensor& t, F&& f) {
  const float* base = t.data_as<float>();
  const int64_t n = t.numel();
  if (n == 0) return;
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) f(base[i]);
    return;
  }
  std::array<int64_t, kMaxRank> index{};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < t.rank; ++d) off += index[d] * t.strides[d];
    f(base[off]);
    for (int d = t.rank - 1; d >= 0; --d) {
      if (++index[d] < t.sizes[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

void RangeCollector::add(const std::string& name, const Tensor& t) {
  if (t.dtype != DType::Float32 || t.numel() == 0) return;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  bool finite = true;
  for_each_float(t, [&](float v) {
    if (!std::isfinite(v)) finite = false;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  });
  if (!finite)
    throw CompileError("calibration: tensor '" + name + "' holds a NaN or an infinity on a calibration sample; " +
                       "its range cannot be quantized (check the sample, or keep its node float with --keep-float)");
  auto [it, fresh] = stats_.try_emplace(name);
  Stats& s = it->second;
  if (fresh) {
    s.min = lo;
    s.max = hi;
  } else {
    s.min = std::min(s.min, lo);
    s.max = std::max(s.max, hi);
  }
  s.count += static_cast<uint64_t>(t.numel());
  if (options_.method != Calibration::Percentile) return;
  const double m = std::max(std::fabs(static_cast<double>(lo)), std::fabs(static_cast<double>(hi)));
  if (s.bins.empty()) {
    s.bins.assign(kBins, 0);
    s.half_width = m > 0 ? m : static_cast<double>(std::numeric_limits<float>::min());
  }
  while (m > s.half_width) {
    // [-T, T] -> [-2T, 2T]: old bins 2k and 2k+1 become bin kBins/4 + k.
    std::vector<uint64_t> merged(kBins, 0);
    for (int j = 0; j < kBins; ++j) merged[static_cast<size_t>((kBins / 2 + j) / 2)] += s.bins[static_cast<size_t>(j)];
    s.bins.swap(merged);
    s.half_width *= 2;
  }
  const double scale = kBins / (2 * s.half_width);
  for_each_float(t, [&](float v) {
    const double pos = (static_cast<double>(v) + s.half_width) * scale;
    const int bin = std::clamp(static_cast<int>(std::floor(pos)), 0, kBins - 1);
    ++s.bins[static_cast<size_t>(bin)];
  });
}

Range RangeCollector::range(const std::string& name) const {
  const Stats& s = stats_.at(name);
  if (options_.method != Calibration::Percentile) return {s.min, s.max};
  uint64_t total = 0;
  for (uint64_t b : s.bins) total += b;
  // Cut (100 - p) / 2 percent of the values off each side: the range runs
  // from the lower edge of the first bin the cut leaves to the upper edge
  // of the last, and stays within the values seen.
  const double cut = (100.0 - options_.percentile) / 200.0 * static_cast<double>(total);
  const double width = 2 * s.half_width / kBins;
  uint64_t seen = 0;
  int left = 0;
  for (; left < kBins - 1; ++left) {
    seen += s.bins[static_cast<size_t>(left)];
    if (static_cast<double>(seen) > cut) break;
  }
  seen = 0;
  int right = kBins - 1;
  for (; right > 0; --right) {
    seen += s.bins[static_cast<size_t>(right)];
    if (static_cast<double>(seen) > cut) break;
  }
  float lo = static_cast<float>(-s.half_width + left * width);
  float hi = static_cast<float>(-s.half_width + (right + 1) * width);
  lo = std::max(lo, s.min);
  hi = std::min(hi, s.max);
  if (lo > hi) lo = hi = s.min;
  return {lo, hi};
}

}  // namespace edgec::quantize::detail
