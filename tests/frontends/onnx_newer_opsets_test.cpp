// Models of opsets 18-23 (IR 8-11), which Debian's ONNX 1.12 knows no
// schema for: the operators that changed after opset 17 and those added
// since, each a case in models/onnx_newer/ with outputs from ONNX Runtime
// 1.30 (models/onnx_newer/gen.py), run as ONNX's backend tests are.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/onnx_cases.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(EDGEC_SOURCE_DIR "/models/onnx_newer"))
    if (fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class NewerOpsetCase : public ::testing::TestWithParam<std::string> {};

TEST_P(NewerOpsetCase, MatchesOnnxRuntime130) {
  const fs::path dir = fs::path(EDGEC_SOURCE_DIR "/models/onnx_newer") / GetParam();
  const std::string bytes = onnx_cases::slurp(dir / "model.onnx");
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  EXPECT_EQ(onnx_cases::run_case(model, bytes, dir, compare::Tolerance::sum(1e-4, 1e-4)), "");
}

INSTANTIATE_TEST_SUITE_P(OnnxNewer, NewerOpsetCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(OnnxNewerOpsets, CasesCoverEveryOpsetPast17) {
  std::set<int64_t> opsets;
  for (const auto& name : case_names()) {
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(onnx_cases::slurp(fs::path(EDGEC_SOURCE_DIR "/models/onnx_newer") / name /
                                                        "model.onnx")));
    opsets.insert(model.opset_import(0).version());
  }
  EXPECT_EQ(opsets, (std::set<int64_t>{18, 19, 20, 21, 22, 23}));
}

}  // namespace
}  // namespace edgec
