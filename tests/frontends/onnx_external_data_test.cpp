// ONNX external data (tensor_data.cpp): a tensor whose data_location is
// EXTERNAL is read from the file its "location" names, relative to the
// folder holding the model, at "offset", for exactly the bytes its dims
// need. A model file is untrusted: every location that leads outside the
// folder (absolute, "..", a symbolic link), every offset or length past the
// file's end or disagreeing with the dims, and every location that is not
// a regular file is a CompileError naming the model, the tensor and the
// location. Each model is built in a fresh folder.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <vector>

#include "frontends/onnx/importer.h"
#include "interpreter/interpreter.h"
#include "base/diagnostic.h"
#include "ir/verifier.h"
#include "compiler/pass_registry.h"
#include "support/onnx_model.h"
#include "support/scoped_memory_limit.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;

const std::vector<float> kWeights = {1.5f, -2.0f, 3.25f, 0.0f, 10.0f, -0.5f};
constexpr uint64_t kWeightBytes = 6 * sizeof(float);
constexpr uint64_t kOffset = 128;  // the weights sit between junk bytes

/// A fresh folder per test: model/ holds the model, outside/ is a sibling
/// the model must not reach.
class OnnxExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/edgec_external_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    model_dir_ = root_ / "model";
    outside_dir_ = root_ / "outside";
    fs::create_directories(model_dir_);
    fs::create_directories(outside_dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  /// Junk, then the weights at kOffset, then more junk.
  static std::string weights_file_bytes() {
    std::string bytes(kOffset, '\x7f');
    bytes.append(reinterpret_cast<const char*>(kWeights.data()), kWeightBytes);
    bytes.append(40, '\x55');
    return bytes;
  }
  static void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  /// y = Add(x, w): x f32[2, 3] a graph input, w an initializer kept in an
  /// external file with the given external_data entries.
  static onnx::ModelProto model(const std::vector<std::pair<std::string, std::string>>& external_data) {
    auto m = empty_onnx_model();
    auto* g = m.mutable_graph();
    add_input(g, "x", {2, 3});
    auto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(2);
    w->add_dims(3);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : external_data) {
      auto* e = w->add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
    add_node(g, "/add", "Add", {"x", "w"}, {"y"});
    g->add_output()->set_name("y");
    return m;
  }

  fs::path save(const onnx::ModelProto& m) {
    const fs::path path = model_dir_ / "model.onnx";
    std::ofstream out(path, std::ios::binary);
    EXPECT_TRUE(m.SerializeToOstream(&out));
    return path;
  }

  /// The model's y for x = 1: w + 1, computed by the interpreter after
  /// to_edge, constant_prop and dce.
  static std::vector<float> run_plus_one(Program& p) {
    for (const char* pass : {"to_edge", "constant_prop", "dce"}) find_pass(pass)->create("")->run(p);
    verify_or_throw(p);
    auto bytes = std::make_shared<std::vector<std::byte>>(kWeightBytes);
    const std::vector<float> ones(6, 1.0f);
    std::memcpy(bytes->data(), ones.data(), kWeightBytes);
    KernelContext ctx;
    const auto out = run_program(p, {{"x", TensorData{TensorType::of(DType::Float32, {2, 3}), bytes}}}, ctx).at(0);
    std::vector<float> y(6);
    EXPECT_EQ(out.bytes->size(), kWeightBytes);
    std::memcpy(y.data(), out.bytes->data(), std::min<size_t>(out.bytes->size(), kWeightBytes));
    return y;
  }

  static std::vector<float> weights_plus_one() {
    std::vector<float> want;
    for (float v : kWeights) want.push_back(v + 1.0f);
    return want;
  }

  /// The error importing `m` (saved as model/model.onnx), or "(no error)".
  std::string error_of(const onnx::ModelProto& m) {
    const fs::path path = save(m);
    try {
      import_onnx(path.string());
    } catch (const CompileError& e) {
      return e.what();
    }
    return "(no error)";
  }

  /// Expects an error naming the model file, the tensor, the location and
  /// `problem`.
  void expect_refused(const std::vector<std::pair<std::string, std::string>>& external_data,
                      const std::string& location, const std::string& problem) {
    const std::string msg = error_of(model(external_data));
    EXPECT_NE(msg.find((model_dir_ / "model.onnx").string() + ": initializer 'w'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("external file '" + location + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(problem), std::string::npos) << msg;
  }

  fs::path root_, model_dir_, outside_dir_;
};

// The weights at an offset (with length) are read and used.
TEST_F(OnnxExternalData, ReadsAtAnOffset) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  const fs::path path =
      save(model({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}, {"length", "24"}}));
  auto p = import_onnx(path.string());
  ASSERT_TRUE(p->constants.count("w")) << "w is not a constant";
  EXPECT_EQ(std::memcmp(p->constants.at("w").bytes->data(), kWeights.data(), kWeightBytes), 0);
  EXPECT_EQ(run_plus_one(*p), weights_plus_one());
}

// A model of an old opset goes through ONNX's version converter, which
// drops references to external files; the weights are still read from
// them (the converter is given stubs, the model keeps its initializers).
TEST_F(OnnxExternalData, OldOpsetModelReadsItsExternalWeights) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  auto m = model({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}, {"length", "24"}});
  m.mutable_opset_import(0)->set_version(9);
  m.set_ir_version(4);
  auto p = import_onnx(save(m).string());
  ASSERT_TRUE(p->constants.count("w")) << "w is not a constant";
  EXPECT_EQ(std::memcmp(p->constants.at("w").bytes->data(), kWeights.data(), kWeightBytes), 0);
  EXPECT_EQ(run_plus_one(*p), weights_plus_one());
}

// A location in a subfolder, without offset or length (the whole file),
// and a checksum entry (ignored).
TEST_F(OnnxExternalData, SubfolderWithoutOffsetOrLength) {
  write(model_dir_ / "data" / "layer0" / "w.bin",
        std::string(reinterpret_cast<const char*>(kWeights.data()), kWeightBytes));
  const fs::path path = save(model({{"location", "data/layer0/w.bin"}, {"checksum", "ignored"}}));
  auto p = import_onnx(path.string());
  EXPECT_EQ(run_plus_one(*p), weights_plus_one());
}

// A model imported through a relative path (as `edgec compile model.onnx`
// in its folder) resolves locations from that folder too.
TEST_F(OnnxExternalData, RelativeModelPath) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  save(model({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}}));
  const fs::path cwd = fs::current_path();
  fs::current_path(model_dir_);
  std::string msg = "(no error)";
  try {
    import_onnx("model.onnx");
  } catch (const CompileError& e) {
    msg = e.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(msg, "(no error)");
}

// A symbolic link inside the folder to a file inside it is followed.
TEST_F(OnnxExternalData, SymlinkToAFileInsideIsFollowed) {
  write(model_dir_ / "real" / "weights.bin", weights_file_bytes());
  fs::create_symlink("real/weights.bin", model_dir_ / "link.bin");
  const fs::path path = save(model({{"location", "link.bin"}, {"offset", std::to_string(kOffset)}}));
  auto p = import_onnx(path.string());
  EXPECT_EQ(run_plus_one(*p), weights_plus_one());
}

// A Constant node's tensor may be external too (read in before the
// handlers, which have no folder).
TEST_F(OnnxExternalData, ConstantNodeValue) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  auto m = model({});
  auto* g = m.mutable_graph();
  onnx::TensorProto w = g->initializer(0);
  g->clear_initializer();
  auto* c = add_node(g, "/const", "Constant", {}, {"w"});
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = w;
  auto* e = a->mutable_t()->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  e = a->mutable_t()->add_external_data();
  e->set_key("offset");
  e->set_value(std::to_string(kOffset));
  g->mutable_node()->SwapElements(0, 1);  // the Constant first
  auto p = import_onnx(save(m).string());
  EXPECT_EQ(run_plus_one(*p), weights_plus_one());

  // ...and the same checks apply, naming the node.
  a = m.mutable_graph()->mutable_node(0)->mutable_attribute(0);
  a->mutable_t()->mutable_external_data(0)->set_value("../outside/weights.bin");
  const std::string msg = error_of(m);
  EXPECT_NE(msg.find("node '/const' (#0, Constant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("attribute 'value' keeps its data in external file '../outside/weights.bin'"), std::string::npos)
      << msg;
}

TEST_F(OnnxExternalData, ParentFolderIsRefused) {
  write(outside_dir_ / "outside.bin", weights_file_bytes());
  expect_refused({{"location", "../outside/outside.bin"}, {"offset", std::to_string(kOffset)}},
                 "../outside/outside.bin", "which has a '..' component; external data must be named within the folder "
                 "holding the model");
  // Even a ".." that would come back inside.
  write(model_dir_ / "weights.bin", weights_file_bytes());
  expect_refused({{"location", "./sub/../weights.bin"}}, "./sub/../weights.bin", "'..'");
}

TEST_F(OnnxExternalData, AbsolutePathIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  const std::string abs = (model_dir_ / "weights.bin").string();  // inside, but absolute
  expect_refused({{"location", abs}, {"offset", std::to_string(kOffset)}}, abs, "an absolute path");
}

TEST_F(OnnxExternalData, SymlinkLeadingOutsideIsRefused) {
  write(outside_dir_ / "outside.bin", weights_file_bytes());
  fs::create_symlink(outside_dir_ / "outside.bin", model_dir_ / "link.bin");
  expect_refused({{"location", "link.bin"}, {"offset", std::to_string(kOffset)}}, "link.bin",
                 "resolves (through a symbolic link) to '" + fs::canonical(outside_dir_ / "outside.bin").string() +
                     "', outside the folder holding the model");
  // A linked folder leading outside, and a relative link climbing out.
  fs::create_directory_symlink(outside_dir_, model_dir_ / "linked_dir");
  expect_refused({{"location", "linked_dir/outside.bin"}}, "linked_dir/outside.bin", "outside the folder");
  fs::create_symlink("../outside/outside.bin", model_dir_ / "relative_link.bin");
  expect_refused({{"location", "relative_link.bin"}}, "relative_link.bin", "outside the folder");
}

TEST_F(OnnxExternalData, MissingFileIsRefused) {
  expect_refused({{"location", "weights.bin"}}, "weights.bin",
                 "which does not exist (looked for " + fs::canonical(model_dir_).string() + "/weights.bin)");
  // A dangling link: nothing to follow.
  fs::create_symlink("nowhere.bin", model_dir_ / "dangling.bin");
  expect_refused({{"location", "dangling.bin"}}, "dangling.bin", "cannot be opened");
}

TEST_F(OnnxExternalData, DirectoryIsRefused) {
  fs::create_directories(model_dir_ / "weights.bin");
  expect_refused({{"location", "weights.bin"}}, "weights.bin", "is not a regular file");
  expect_refused({{"location", "."}}, ".", "is not a regular file");
}

// A FIFO would block a plain open and never end a read.
TEST_F(OnnxExternalData, FifoIsRefused) {
  ASSERT_EQ(mkfifo((model_dir_ / "pipe.bin").c_str(), 0600), 0);
  expect_refused({{"location", "pipe.bin"}}, "pipe.bin", "is not a regular file");
}

TEST_F(OnnxExternalData, OffsetBeyondTheFileIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());  // 192 bytes
  expect_refused({{"location", "weights.bin"}, {"offset", "1000"}}, "weights.bin",
                 "offset 1000 is beyond the end of the file (192 bytes)");
  // In the file, but the data would run past its end.
  expect_refused({{"location", "weights.bin"}, {"offset", "180"}, {"length", "24"}}, "weights.bin",
                 "range (offset 180, length 24) extends beyond the end of the file (192 bytes)");
  expect_refused({{"location", "weights.bin"}, {"offset", "180"}}, "weights.bin",
                 "holds 12 bytes from offset 180, fewer than the 24 bytes that its dims [2, 3] of float need");
  // Values whose sum wraps around 2^64.
  expect_refused({{"location", "weights.bin"}, {"offset", "100"}, {"length", "18446744073709551615"}},
                 "weights.bin", "extends beyond the end of the file");
  expect_refused({{"location", "weights.bin"}, {"offset", "18446744073709551615"}, {"length", "24"}}, "weights.bin",
                 "offset 18446744073709551615 is beyond the end of the file");
}

TEST_F(OnnxExternalData, LengthMismatchIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  expect_refused({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}, {"length", "20"}}, "weights.bin",
                 "length 20 differs from the 24 bytes that its dims [2, 3] of float need");
  expect_refused({{"location", "weights.bin"}, {"length", "48"}}, "weights.bin", "length 48 differs");
}

TEST_F(OnnxExternalData, MalformedNumbersAreRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  for (const char* bad : {"-1", "abc", "", " 1", "+128", "0x80", "1e3", "18446744073709551616"}) {
    expect_refused({{"location", "weights.bin"}, {"offset", bad}}, "weights.bin",
                   "offset '" + std::string(bad) + "' is not a non-negative integer");
  }
  expect_refused({{"location", "weights.bin"}, {"length", "-24"}}, "weights.bin",
                 "length '-24' is not a non-negative integer");
}

TEST_F(OnnxExternalData, MissingLocationIsRefused) {
  const std::string msg = error_of(model({{"offset", "0"}}));
  EXPECT_NE(msg.find("initializer 'w' keeps its data in an external file but does not name it"), std::string::npos)
      << msg;
}

TEST_F(OnnxExternalData, DataInTwoPlacesIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  auto m = model({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}});
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(kWeightBytes, '\0'));
  const std::string msg = error_of(m);
  EXPECT_NE(msg.find("external file 'weights.bin' but also holds data in the model"), std::string::npos) << msg;
}

// Bytes have no folder (import_onnx_bytes, the fuzzer's entry point).
TEST_F(OnnxExternalData, ModelFromBytesIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  const std::string bytes = model({{"location", "weights.bin"}}).SerializeAsString();
  try {
    import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "memory.onnx");
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("memory.onnx: initializer 'w' keeps its data in external file "
                                         "'weights.bin', but the model was not read from a file"),
              std::string::npos)
        << e.what();
  }
}

// An external tensor larger than the memory limit is refused from its dims
// before a byte is read: the file (sparse, 64 MiB) holds all the data, so
// without the check it was read in whole (issue 14: a 3 GiB initializer
// with a limit of 1 GiB was refused only once 3 GiB were resident).
TEST_F(OnnxExternalData, TensorOverTheMemoryLimitIsRefusedBeforeReading) {
  const ScopedMemoryLimit limit("1MiB");
  const fs::path weights = model_dir_ / "weights.bin";
  write(weights, "");
  fs::resize_file(weights, 64 << 20);
  auto m = model({{"location", "weights.bin"}, {"length", std::to_string(64 << 20)}});
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->set_dims(0, 16 << 20);  // f32[16777216, 1]: 64 MiB
  w->set_dims(1, 1);
  const std::string msg = error_of(m);
  EXPECT_NE(msg.find((model_dir_ / "model.onnx").string() + ": initializer 'w' has dims [16777216, 1] of float: "
                     "67108864 bytes, more than the memory limit of 1048576 bytes (set EDGEC_MEMORY_LIMIT to "
                     "change it)"),
            std::string::npos)
      << msg;
}

// The same limit for data inside the model (raw_data and the typed
// fields), whose bytes would otherwise be copied; at the limit it imports.
// From bytes: a model file this large is refused before it is parsed. The
// weights are 12 KiB, so that the limits tried stay above what the graph's
// one node needs (the importer's node check: 1.25 KiB a node).
TEST_F(OnnxExternalData, DataInTheModelOverTheMemoryLimitIsRefused) {
  constexpr int64_t kCopies = 512;
  std::vector<float> weights;
  for (int64_t c = 0; c < kCopies; ++c)
    for (float v : kWeights) weights.push_back(v + static_cast<float>(c));
  const uint64_t bytes = weights.size() * sizeof(float);
  auto m = model({});
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_external_data();
  w->set_data_location(onnx::TensorProto::DEFAULT);
  w->clear_dims();
  for (int64_t d : {kCopies, int64_t{2}, int64_t{3}}) w->add_dims(d);
  w->set_raw_data(std::string(reinterpret_cast<const char*>(weights.data()), bytes));
  // y = x + w with x all ones: every weight plus one, in order.
  auto import_error = [&]() -> std::string {
    const std::string model_bytes = m.SerializeAsString();
    try {
      auto p = import_onnx_bytes(std::as_bytes(std::span<const char>(model_bytes.data(), model_bytes.size())),
                                 "memory.onnx");
      for (const char* pass : {"to_edge", "constant_prop", "dce"}) find_pass(pass)->create("")->run(*p);
      const std::vector<float> ones(6, 1.0f);
      auto x = std::make_shared<std::vector<std::byte>>(6 * sizeof(float));
      std::memcpy(x->data(), ones.data(), x->size());
      KernelContext ctx;
      const auto out = run_program(*p, {{"x", TensorData{TensorType::of(DType::Float32, {2, 3}), x}}}, ctx).at(0);
      std::vector<float> y(weights.size()), want;
      EXPECT_EQ(out.bytes->size(), bytes);
      std::memcpy(y.data(), out.bytes->data(), std::min<size_t>(out.bytes->size(), bytes));
      for (float v : weights) want.push_back(v + 1.0f);
      EXPECT_EQ(y, want);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string refusal = "memory.onnx: initializer 'w' has dims [512, 2, 3] of float: 12288 bytes, more than the "
                              "memory limit of 12287 bytes (set EDGEC_MEMORY_LIMIT to change it)";
  {
    const ScopedMemoryLimit limit("12288");
    EXPECT_EQ(import_error(), "(no error)");
  }
  const ScopedMemoryLimit limit("12287");
  EXPECT_EQ(import_error(), refusal);
  w->clear_raw_data();
  for (float v : weights) w->add_float_data(v);
  EXPECT_EQ(import_error(), refusal);
}

// The model file itself is held whole while it is parsed: one larger than
// the memory limit is refused before it is read.
TEST_F(OnnxExternalData, ModelFileOverTheMemoryLimitIsRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  const fs::path path = save(model({{"location", "weights.bin"}, {"offset", std::to_string(kOffset)}}));
  const uint64_t size = fs::file_size(path);
  const ScopedMemoryLimit limit(std::to_string(size - 1).c_str());
  std::string msg = "(no error)";
  try {
    import_onnx(path.string());
  } catch (const CompileError& e) {
    msg = e.what();
  }
  EXPECT_EQ(msg, path.string() + ": the file has " + std::to_string(size) + " bytes, more than the memory limit of " +
                     std::to_string(size - 1) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

// Dims whose element count or bytes wrap int64 are refused before any size
// is compared (2^32 * 2^32 elements wrapped to 0; 2^61 int64 are 2^64 bytes).
TEST_F(OnnxExternalData, DimsWhoseSizeWrapsAreRefused) {
  write(model_dir_ / "weights.bin", weights_file_bytes());
  auto m = model({{"location", "weights.bin"}});
  auto* w = m.mutable_graph()->mutable_initializer(0);
  // The error with w of type `type` and dims [d0, d1].
  auto error_with = [&](int type, int64_t d0, int64_t d1) {
    w->set_data_type(type);
    w->set_dims(0, d0);
    w->set_dims(1, d1);
    return error_of(m);
  };
  std::string msg = error_with(onnx::TensorProto::FLOAT, int64_t{1} << 32, int64_t{1} << 32);
  EXPECT_NE(msg.find("initializer 'w' has invalid dims [4294967296, 4294967296]: their element count does not fit "
                     "in int64"),
            std::string::npos)
      << msg;
  msg = error_with(onnx::TensorProto::INT64, int64_t{1} << 61, 1);
  EXPECT_NE(msg.find("initializer 'w' is too large: its dims [2305843009213693952, 1] of int64 need more bytes than "
                     "fit in int64"),
            std::string::npos)
      << msg;
  // A zero dim makes it empty, however large the others: the initializer
  // reads (0 bytes), and the Add is what fails.
  msg = error_with(onnx::TensorProto::FLOAT, int64_t{1} << 62, 0);
  EXPECT_NE(msg.find("node '/add'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("initializer 'w'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace edgec
