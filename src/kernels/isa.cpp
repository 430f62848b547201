// The choice of instruction set: see isa.h.
#include "kernels/isa.h"

#include <cstdlib>
#include <string>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace edgec {
namespace {

std::string lower(const char* s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// The features that `isa`'s build needs and `cpu` lacks, comma-separated
// ("" if none). The wide build needs the baseline's features too.
std::string missing(const CpuFeatures& cpu, Isa isa) {
  std::string out;
  auto need = [&](bool has, const char* name) {
    if (has) return;
    if (!out.empty()) out += ", ";
    out += name;
  };
  if (isa == Isa::Neon || isa == Isa::Armv82) {
    need(cpu.asimd, "asimd");
    if (isa == Isa::Armv82) {
      need(cpu.fphp, "fphp");
      need(cpu.asimdhp, "asimdhp");
      need(cpu.asimddp, "asimddp");
    }
    return out;
  }
  need(cpu.avx2, "avx2");
  need(cpu.fma, "fma");
  need(cpu.f16c, "f16c");
  if (isa == Isa::Avx512) {
    need(cpu.avx512f, "avx512f");
    need(cpu.avx512bw, "avx512bw");
    need(cpu.avx512dq, "avx512dq");
    need(cpu.avx512vl, "avx512vl");
  }
  return out;
}

// What the baseline needs, in the words of the error a CPU without it gets.
constexpr const char* kBaselineWords = kBaselineIsa == Isa::Neon
                                           ? "edgec is built for aarch64 CPUs with Advanced SIMD (NEON)"
                                           : "edgec is built for x86-64 CPUs with AVX2, FMA and F16C";

struct Choice {
  Error error = Error::Ok;
  std::string detail;
  Isa isa = kBaselineIsa;
};

const Choice& process_choice() {
  static const Choice choice = [] {
    Choice c;
    Result<Isa> r = choose_isa(std::getenv("EDGEC_ISA"), cpu_features());
    if (r.ok()) {
      c.isa = *r;
    } else {
      c.error = r.error();
      c.detail = error_detail();
    }
    return c;
  }();
  return choice;
}

// Resolved at load, so that the first kernel call does not pay for it.
[[maybe_unused]] const Isa g_resolved_at_load = process_choice().isa;

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
    case Isa::Neon: return "neon";
    case Isa::Armv82: return "armv8.2";
  }
  return "?";
}

CpuFeatures cpu_features() {
  CpuFeatures f;
#if defined(__aarch64__)
  // Linux's arm64 hwcap bits (asm/hwcap.h), spelled out so that the build
  // needs no kernel headers newer than the cross toolchain's.
  constexpr unsigned long kAsimd = 1ul << 1, kFphp = 1ul << 9, kAsimdhp = 1ul << 10, kAsimddp = 1ul << 20;
  const unsigned long hw = getauxval(AT_HWCAP);
  f.asimd = (hw & kAsimd) != 0;
  f.fphp = (hw & kFphp) != 0;
  f.asimdhp = (hw & kAsimdhp) != 0;
  f.asimddp = (hw & kAsimddp) != 0;
#elif defined(__x86_64__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.f16c = __builtin_cpu_supports("f16c");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

Result<Isa> choose_isa(const char* requested, const CpuFeatures& cpu) {
  const std::string value = requested ? lower(requested) : std::string();
  if (value.empty()) {
    const std::string lacks = missing(cpu, kBaselineIsa);
    if (!lacks.empty()) return fail(Error::NotSupported, std::string(kBaselineWords) + "; this CPU lacks " + lacks);
    return missing(cpu, kWideIsa).empty() ? kWideIsa : kBaselineIsa;
  }
  Isa isa;
  if (value == isa_name(kBaselineIsa)) {
    isa = kBaselineIsa;
  } else if (value == isa_name(kWideIsa)) {
    isa = kWideIsa;
  } else {
    return fail(Error::InvalidArgument, "EDGEC_ISA='" + std::string(requested) +
                                            "' names no instruction set edgec is built for; expected " +
                                            isa_name(kBaselineIsa) + " or " + isa_name(kWideIsa) +
                                            " (unset: the best this CPU has)");
  }
  const std::string lacks = missing(cpu, isa);
  if (!lacks.empty())
    return fail(Error::NotSupported, "EDGEC_ISA='" + std::string(requested) + "' needs CPU features this CPU lacks: " +
                                         lacks + "; unset EDGEC_ISA for the best this CPU has");
  return isa;
}

Error check_isa() {
  const Choice& c = process_choice();
  if (c.error == Error::Ok) return Error::Ok;
  return fail(c.error, c.detail);
}

Isa kernel_isa() { return process_choice().isa; }

bool kernel_isa_has_f16_arithmetic() { return kernel_isa() == Isa::Armv82; }

}  // namespace edgec
