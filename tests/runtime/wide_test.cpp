// Programs of many instructions: the runtime's state grows with what the
// program needs. Values are checked by hand.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/text.h"
#include "compiler/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

// A chain of `links` unary edge operators `op` from %x to %y, both f32[4].
std::string chain(int64_t links, const std::string& op) {
  std::string text = "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
                     "  output user_output %y target = \"y\"\n}\ngraph {\n  %x = placeholder : f32[4]\n";
  for (int64_t i = 0; i < links; ++i) {
    const std::string from = i == 0 ? "%x" : "%v" + std::to_string(i - 1);
    const std::string to = i + 1 == links ? "%y" : "%v" + std::to_string(i);
    text += "  " + to + " = edge." + op + ".default(" + from + ") : f32[4]\n";
  }
  return text + "  output(%y)\n}\n";
}

// Bytes malloc has handed out and not had back, blocks it mapped included.
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Runs `m` on x and returns y (both f32[4]).
std::vector<float> run(runtime::Method& m, std::vector<float> x) {
  const int64_t shape[] = {4};
  EXPECT_EQ(m.set_input(0, make_tensor(DType::Float32, shape, x.data(), 0)), Error::Ok) << error_detail();
  EXPECT_EQ(m.execute(), Error::Ok) << error_detail();
  const Tensor& y = m.output(0);
  return {y.data_as<float>(), y.data_as<float>() + y.numel()};
}

// Regression: Method::create gave every instruction its own tables of its
// operands' tensors (two vectors, a tensor per operand, and two more for
// delegate calls): twice what the values (one tensor per slot) need, 45 MB
// for a chain of 100,000 against 15. One pair sized for the widest
// instruction serves them all (they run one at a time).
TEST(RuntimeWide, MethodStateGrowsWithTheSlotsNotTheOperands) {
  constexpr int64_t kLinks = 20000;
  CompiledProgram c(chain(kLinks, "neg"), "wide.ir", "none");
  ASSERT_TRUE(c.program);
  ASSERT_EQ(c.program->instructions().size(), static_cast<size_t>(kLinks));
  const size_t before = heap_in_use();
  auto m = runtime::Method::create(*c.program);
  ASSERT_TRUE(m.ok()) << error_detail();
  const size_t grown = heap_in_use() - before;
  // The values and the arena, with room for the allocator's own bytes.
  const size_t need = c.program->slots().size() * sizeof(Tensor) + c.program->arena_size();
  EXPECT_LT(grown, need + need / 4) << "Method::create allocated " << grown << " bytes for " << kLinks
                                     << " instructions";
  // An even number of negations gives x back.
  EXPECT_EQ(run(**m, {1.f, -2.f, 3.5f, 0.f}), (std::vector<float>{1.f, -2.f, 3.5f, 0.f}));
}


// Regression: the loader gave every instruction two vectors of its own for
// its operands (80 MB for a chain of 10^6); they live in one array of the
// Program now, so that a loaded instruction costs its struct and its
// result's slot, with no allocation of its own.
TEST(RuntimeWide, LoadKeepsOperandsInOneArray) {
  constexpr int64_t kLinks = 20000;
  const AlignedBytes data(CompiledProgram::compile(chain(kLinks, "neg"), "wide.ir", "none"));
  const size_t before = heap_in_use();
  auto loaded = runtime::Program::load_from_bytes(data.span());
  ASSERT_TRUE(loaded.ok()) << error_detail();
  const size_t grown = heap_in_use() - before;
  const runtime::Program& program = **loaded;
  ASSERT_EQ(program.instructions().size(), static_cast<size_t>(kLinks));
  // Per instruction: its struct, its result's slot and that slot's dims
  // (one small block), with room for the allocator's own bytes.
  const size_t per = sizeof(runtime::Instruction) + sizeof(runtime::Slot) + 64;
  EXPECT_LT(grown, per * kLinks) << "the load allocated " << grown / kLinks << " bytes an instruction";
}

}  // namespace
}  // namespace edgec
