// The choice of instruction set: see isa.h.
#include "kernels/isa.h"

#include <cstdlib>
#include <string>

namespace edgec {
namespace {

std::string lower(const char* s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// The features of `want` that `cpu` lacks, comma-separated ("" if none).
std::string missing(const CpuFeatures& cpu, bool avx512) {
  std::string out;
  auto need = [&](bool has, const char* name) {
    if (has) return;
    if (!out.empty()) out += ", ";
    out += name;
  };
  need(cpu.avx2, "avx2");
  need(cpu.fma, "fma");
  need(cpu.f16c, "f16c");
  if (avx512) {
    need(cpu.avx512f, "avx512f");
    need(cpu.avx512bw, "avx512bw");
    need(cpu.avx512dq, "avx512dq");
    need(cpu.avx512vl, "avx512vl");
  }
  return out;
}

struct Choice {
  Error error = Error::Ok;
  std::string detail;
  Isa isa = Isa::Avx2;
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

const char* isa_name(Isa isa) { return isa == Isa::Avx512 ? "avx512" : "avx2"; }

CpuFeatures cpu_features() {
  __builtin_cpu_init();
  CpuFeatures f;
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.f16c = __builtin_cpu_supports("f16c");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
  return f;
}

Result<Isa> choose_isa(const char* requested, const CpuFeatures& cpu) {
  const std::string value = requested ? lower(requested) : std::string();
  if (value.empty()) {
    if (missing(cpu, false).empty()) return missing(cpu, true).empty() ? Isa::Avx512 : Isa::Avx2;
    return fail(Error::NotSupported, "edgec is built for x86-64 CPUs with AVX2, FMA and F16C; this CPU lacks " +
                                         missing(cpu, false));
  }
  Isa isa;
  if (value == "avx2") {
    isa = Isa::Avx2;
  } else if (value == "avx512") {
    isa = Isa::Avx512;
  } else {
    return fail(Error::InvalidArgument, "EDGEC_ISA='" + std::string(requested) +
                                            "' names no instruction set edgec is built for; expected avx2 or avx512 "
                                            "(unset: the best this CPU has)");
  }
  const std::string lacks = missing(cpu, isa == Isa::Avx512);
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

}  // namespace edgec
