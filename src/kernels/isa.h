// Which instruction set the hand-written kernels run (docs/architecture.md,
// "Instruction sets"). Each architecture has a baseline build of everything
// and a second, wider build of the hot kernels, each build in its own
// namespace, and a dispatcher calls the one chosen here, once per process,
// from the CPU's features and the EDGEC_ISA environment variable:
//
//   x86-64: everything is built for x86-64-v3 (AVX2 + FMA + F16C), the hot
//   kernels again for AVX-512 (edgec::avx2, edgec::avx512).
//     unset or empty  the best this CPU has (avx512 where it has AVX-512
//                     F/BW/DQ/VL, avx2 otherwise);
//     avx2            the AVX2 kernels, and oneDNN held to AVX2 too;
//     avx512          the AVX-512 kernels (an error on a CPU without them).
//   aarch64: everything is built for ARMv8-A (NEON), the hot kernels again
//   for ARMv8.2-A with float16 arithmetic and the dot product (edgec::neon,
//   edgec::armv82), the features of the Cortex-A55/A75 and later (Pi 5,
//   Jetson Orin, phones); a Cortex-A53/A72 (Pi 3/4) has neither.
//     unset or empty  the best this CPU has (armv8.2 where it reports fphp,
//                     asimdhp and asimddp, neon otherwise);
//     neon            the ARMv8-A kernels, and no float16 arithmetic in the
//                     delegates either;
//     armv8.2         the ARMv8.2-A kernels (an error on a CPU without them).
// Any other value is an error. Errors are reported by check_isa() (the
// runtime's Program::load, the delegates' init and the driver call it); the
// kernels themselves never fail on it and run the baseline build.
#pragma once

#include <cstdint>

#include "base/error.h"

namespace edgec {

enum class Isa : uint8_t { Avx2, Avx512, Neon, Armv82 };

/// The baseline and the wide build of the architecture edgec is built for.
#if defined(__aarch64__)
inline constexpr Isa kBaselineIsa = Isa::Neon;
inline constexpr Isa kWideIsa = Isa::Armv82;
#else
inline constexpr Isa kBaselineIsa = Isa::Avx2;
inline constexpr Isa kWideIsa = Isa::Avx512;
#endif

/// "avx2", "avx512", "neon" or "armv8.2", as EDGEC_ISA spells it.
const char* isa_name(Isa isa);

/// The CPU features the kernels' builds need (those of the architecture
/// edgec is built for; the others stay false).
struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512dq = false, avx512vl = false;
  /// aarch64: Advanced SIMD; float16 scalar and vector arithmetic; the
  /// 8-bit dot product (Linux's hwcaps asimd, fphp, asimdhp, asimddp).
  bool asimd = false, fphp = false, asimdhp = false, asimddp = false;
};

/// This CPU's features (x86-64: CPUID through __builtin_cpu_supports;
/// aarch64: the kernel's hwcaps, getauxval(AT_HWCAP)).
CpuFeatures cpu_features();

/// What EDGEC_ISA = `requested` (nullptr: unset) selects on a CPU with
/// `cpu`: InvalidArgument for a value that names no build, NotSupported
/// for a build the CPU cannot run; the detail names the variable, the
/// value, what was expected and the missing features.
Result<Isa> choose_isa(const char* requested, const CpuFeatures& cpu);

/// The process's choice (choose_isa on EDGEC_ISA and this CPU, made once):
/// Ok, or its Error with the detail set on this thread.
Error check_isa();

/// The instruction set the kernels run: the choice, or kBaselineIsa when
/// EDGEC_ISA cannot be honoured (check_isa reports that).
Isa kernel_isa();

/// Whether the chosen instruction set has float16 arithmetic (armv8.2):
/// what a delegate asks before running float16 steps natively.
bool kernel_isa_has_f16_arithmetic();

}  // namespace edgec
