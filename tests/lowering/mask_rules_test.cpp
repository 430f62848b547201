// docs/semantics.md §7 on the exported mask fixtures (models/fixtures/mask_*.onnx):
// after import and optimization, a constant mask's gather reads folded
// integer positions and no mask rule refuses it; every other mask leaves a
// nonzero behind, and mask_refusal names the mask's origin. The mutated
// buffer case cannot come from ONNX (the exporter drops the write-back, see
// models/README.md), so it is written in textual IR.
#include <gtest/gtest.h>

#include "frontends/onnx/importer.h"
#include "ir/text.h"
#include "lowering/mask_rules.h"
#include "passes/pipeline.h"

namespace edgec {
namespace {

const std::string kFixtures = EDGEC_SOURCE_DIR "/models/fixtures/";

bool is_gather(const Node& n) {
  for (const char* op : {".index.", ".take.", ".gather."})
    if (n.op().find(op) != std::string::npos) return true;
  return false;
}

/// The mask_refusal of every gathering call of the optimized fixture.
std::vector<std::optional<std::string>> refusals_of(const std::string& name) {
  auto p = import_onnx(kFixtures + name + ".onnx");
  optimize_program(*p);
  std::vector<std::optional<std::string>> out;
  for (const Node* n : p->graph.calls())
    if (is_gather(*n)) out.push_back(mask_refusal(*p, *n));
  return out;
}

class ConstantMask : public ::testing::TestWithParam<std::string> {};

// docs/semantics.md §7.1: taken (positions are constants after folding).
TEST_P(ConstantMask, PositionsAreFoldedAndNothingRefuses) {
  const auto r = refusals_of(GetParam());
  ASSERT_FALSE(r.empty()) << "no gather in " << GetParam();
  for (const auto& reason : r) EXPECT_FALSE(reason.has_value()) << *reason;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ConstantMask,
                         ::testing::Values("mask_const_1d", "mask_const_2d", "mask_const_3d", "mask_axis1",
                                           "mask_buffer", "mask_all_false", "mask_with_index", "mask_with_slice",
                                           // The exporter turns `active[1] = True` into a ScatterND on the
                                           // buffer's initial value: constants only, so it folds too.
                                           "mask_mutated_buffer_const"));

struct Refused {
  std::string fixture, expected;
};

class RefusedMask : public ::testing::TestWithParam<Refused> {};

// docs/semantics.md §7.2: each refusal names why.
TEST_P(RefusedMask, ReasonNamesTheOrigin) {
  const auto r = refusals_of(GetParam().fixture);
  ASSERT_FALSE(r.empty());
  bool found = false;
  for (const auto& reason : r)
    if (reason) {
      found = true;
      EXPECT_NE(reason->find(GetParam().expected), std::string::npos) << *reason;
      EXPECT_NE(reason->find("SEMANTICS 7.2"), std::string::npos) << *reason;
    }
  EXPECT_TRUE(found) << GetParam().fixture << ": no gather was refused";
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RefusedMask,
    ::testing::Values(Refused{"mask_computed", "the boolean mask is computed in the graph"},
                      Refused{"mask_input", "is a user input"},
                      Refused{"mask_buffer_overridable", "is a parameter (its values may change at load)"},
                      Refused{"mask_mutated_buffer", "the boolean mask is computed in the graph"}),
    [](const auto& info) { return info.param.fixture; });

TEST(MaskRules, MutatedBufferAndMixedIndices) {
  auto p = parse_program(
      "program dialect = \"edge\"\n"
      "signature {\n"
      "  input user_input %x target = \"x\"\n"
      "  input buffer %m target = \"active\" persistent = true\n"
      "  input constant %i target = \"idx\"\n"
      "  output buffer_mutation %nm target = \"active\"\n"
      "  output user_output %y target = \"y\"\n"
      "  output user_output %z target = \"z\"\n"
      "}\n"
      "graph {\n"
      "  %x = placeholder : f32[4, 6]\n"
      "  %m = placeholder : bool[4]\n"
      "  %i = placeholder : i64[2]\n"
      "  %nm = edge.logical_not.default(%m) : bool[4]\n"
      "  %nz = edge.nonzero.default(%m) : i64[?<=4, 1]\n"
      "  %pos = edge.select.default(%nz, dim = -1, index = 0) : i64[?<=4]\n"
      "  %y = edge.index.default(%x, [%pos]) : f32[?<=4, 6]\n"
      "  %z = edge.index.default(%x, [%i, %pos]) : f32[2]\n"
      "  output(%nm, %y, %z)\n"
      "}\n"
      "state {\n  \"active\" = dense<true> : bool[4]\n}\n"
      "constants {\n  \"idx\" = dense<[0, 1]> : i64[2]\n}\n",
      "test.ir");
  std::vector<std::string> reasons;
  for (const Node* n : p->graph.calls())
    if (is_gather(*n)) reasons.push_back(mask_refusal(*p, *n).value_or("(taken)"));
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("'active' is a buffer the program mutates"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[1].find("used together with other indices"), std::string::npos) << reasons[1];
}

}  // namespace
}  // namespace edgec
