// The choice of instruction set (kernels/isa.h): what each EDGEC_ISA value
// selects on CPUs with and without the wide build's features (x86-64:
// AVX-512; aarch64: ARMv8.2's float16 arithmetic and dot product), and the
// errors' wording. The CPUs are described here, not read from this machine.
#include "kernels/isa.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace edgec {
namespace {

#if defined(__aarch64__)
CpuFeatures cortex_a53() {  // ARMv8-A: NEON only (Raspberry Pi 3)
  CpuFeatures f;
  f.asimd = true;
  return f;
}

CpuFeatures cortex_a76() {  // ARMv8.2-A with float16 arithmetic and the dot product (Raspberry Pi 5)
  CpuFeatures f = cortex_a53();
  f.fphp = f.asimdhp = f.asimddp = true;
  return f;
}

TEST(Isa, UnsetIsTheBestTheCpuHas) {
  auto a = choose_isa(nullptr, cortex_a53());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Isa::Neon);
  auto b = choose_isa(nullptr, cortex_a76());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, Isa::Armv82);
  auto c = choose_isa("", cortex_a76());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, Isa::Armv82);
}

// float16 arithmetic without the dot product (some Cortex-A75 licensees'
// cores, as the kernel reports them) is not enough for the armv8.2 build.
TEST(Isa, Fp16WithoutDotProductIsNeon) {
  CpuFeatures f = cortex_a76();
  f.asimddp = false;
  auto r = choose_isa(nullptr, f);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Isa::Neon);
}

TEST(Isa, NamedSets) {
  for (const char* v : {"neon", "NEON", "Neon"}) {
    auto r = choose_isa(v, cortex_a76());
    ASSERT_TRUE(r.ok()) << v;
    EXPECT_EQ(*r, Isa::Neon);
  }
  auto r = choose_isa("ARMv8.2", cortex_a76());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Isa::Armv82);
  EXPECT_STREQ(isa_name(Isa::Neon), "neon");
  EXPECT_STREQ(isa_name(Isa::Armv82), "armv8.2");
}

TEST(Isa, Armv82WithoutItIsNotSupported) {
  auto r = choose_isa("armv8.2", cortex_a53());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::NotSupported);
  EXPECT_EQ(error_detail(),
            "EDGEC_ISA='armv8.2' needs CPU features this CPU lacks: fphp, asimdhp, asimddp; unset EDGEC_ISA for the "
            "best this CPU has");
}

TEST(Isa, UnknownValueIsInvalidArgument) {
  for (const char* v : {"avx2", "avx512", "sve", "armv8", "native"}) {
    auto r = choose_isa(v, cortex_a76());
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.error(), Error::InvalidArgument);
    EXPECT_EQ(error_detail(), "EDGEC_ISA='" + std::string(v) +
                                  "' names no instruction set edgec is built for; expected neon or armv8.2 (unset: "
                                  "the best this CPU has)");
  }
}

TEST(Isa, NoNeonIsNotSupported) {
  auto r = choose_isa(nullptr, CpuFeatures{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::NotSupported);
  EXPECT_EQ(error_detail(), "edgec is built for aarch64 CPUs with Advanced SIMD (NEON); this CPU lacks asimd");
}

#else
CpuFeatures avx2_cpu() {
  CpuFeatures f;
  f.avx2 = f.fma = f.f16c = true;
  return f;
}

CpuFeatures avx512_cpu() {
  CpuFeatures f = avx2_cpu();
  f.avx512f = f.avx512bw = f.avx512dq = f.avx512vl = true;
  return f;
}

TEST(Isa, UnsetIsTheBestTheCpuHas) {
  auto a = choose_isa(nullptr, avx2_cpu());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Isa::Avx2);
  auto b = choose_isa(nullptr, avx512_cpu());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, Isa::Avx512);
  auto c = choose_isa("", avx512_cpu());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, Isa::Avx512);
}

TEST(Isa, PartialAvx512IsAvx2) {
  CpuFeatures f = avx512_cpu();
  f.avx512bw = false;  // AVX-512 F without BW (Knights Landing-like)
  auto r = choose_isa(nullptr, f);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Isa::Avx2);
}

TEST(Isa, NamedSets) {
  for (const char* v : {"avx2", "AVX2", "Avx2"}) {
    auto r = choose_isa(v, avx512_cpu());
    ASSERT_TRUE(r.ok()) << v;
    EXPECT_EQ(*r, Isa::Avx2);
  }
  auto r = choose_isa("avx512", avx512_cpu());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Isa::Avx512);
  EXPECT_STREQ(isa_name(Isa::Avx2), "avx2");
  EXPECT_STREQ(isa_name(Isa::Avx512), "avx512");
}

TEST(Isa, Avx512WithoutItIsNotSupported) {
  CpuFeatures f = avx512_cpu();
  f.avx512dq = f.avx512vl = false;
  auto r = choose_isa("avx512", f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::NotSupported);
  EXPECT_EQ(error_detail(),
            "EDGEC_ISA='avx512' needs CPU features this CPU lacks: avx512dq, avx512vl; unset EDGEC_ISA for the best "
            "this CPU has");
  auto a = choose_isa("avx512", avx2_cpu());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(error_detail().find("avx512f, avx512bw, avx512dq, avx512vl"), std::string::npos) << error_detail();
}

TEST(Isa, UnknownValueIsInvalidArgument) {
  for (const char* v : {"avx", "sse4", "avx512f", "native", " avx2"}) {
    auto r = choose_isa(v, avx512_cpu());
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.error(), Error::InvalidArgument);
    EXPECT_EQ(error_detail(), "EDGEC_ISA='" + std::string(v) +
                                  "' names no instruction set edgec is built for; expected avx2 or avx512 (unset: the "
                                  "best this CPU has)");
  }
}

TEST(Isa, NoAvx2IsNotSupported) {
  CpuFeatures f = avx2_cpu();
  f.fma = false;
  for (const char* v : {static_cast<const char*>(nullptr), "avx2"}) {
    auto r = choose_isa(v, f);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), Error::NotSupported);
    EXPECT_NE(error_detail().find("fma"), std::string::npos) << error_detail();
  }
}

#endif

// The process's choice follows EDGEC_ISA as ctest sets it (kernels.avx2.*
// runs with EDGEC_ISA=avx2).
TEST(Isa, ProcessChoiceFollowsTheEnvironment) {
  EXPECT_EQ(check_isa(), Error::Ok);
  const char* env = std::getenv("EDGEC_ISA");
  auto expected = choose_isa(env, cpu_features());
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(kernel_isa(), *expected);
  if (env && std::string(env) == isa_name(kBaselineIsa)) {
    EXPECT_EQ(kernel_isa(), kBaselineIsa);
  }
}

}  // namespace
}  // namespace edgec
