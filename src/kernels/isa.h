// Which instruction set the hand-written kernels run (docs/architecture.md,
// "Instruction sets"). Everything is built for x86-64-v3 (AVX2 + FMA +
// F16C); the hot kernels are built a second time for AVX-512, each build in
// its own namespace (edgec::avx2, edgec::avx512), and a dispatcher calls
// the one chosen here, once per process, from CPUID and the EDGEC_ISA
// environment variable:
//   unset or empty  the best this CPU has (avx512 where it has AVX-512
//                   F/BW/DQ/VL, avx2 otherwise);
//   avx2            the AVX2 kernels, and oneDNN held to AVX2 too;
//   avx512          the AVX-512 kernels (an error on a CPU without them).
// Any other value is an error. Errors are reported by check_isa() (the
// runtime's Program::load, the onednn delegate's init and the driver call
// it); the kernels themselves never fail on it and run the AVX2 build.
#pragma once

#include <cstdint>

#include "base/error.h"

namespace edgec {

enum class Isa : uint8_t { Avx2, Avx512 };

/// "avx2" or "avx512", as EDGEC_ISA spells it.
const char* isa_name(Isa isa);

/// The CPU features the kernels' builds need.
struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512dq = false, avx512vl = false;
};

/// This CPU's features (CPUID, through __builtin_cpu_supports).
CpuFeatures cpu_features();

/// What EDGEC_ISA = `requested` (nullptr: unset) selects on a CPU with
/// `cpu`: InvalidArgument for a value that names no build, NotSupported
/// for a build the CPU cannot run; the detail names the variable, the
/// value, what was expected and the missing features.
Result<Isa> choose_isa(const char* requested, const CpuFeatures& cpu);

/// The process's choice (choose_isa on EDGEC_ISA and this CPU, made once):
/// Ok, or its Error with the detail set on this thread.
Error check_isa();

/// The instruction set the kernels run: the choice, or Isa::Avx2 when
/// EDGEC_ISA cannot be honoured (check_isa reports that).
Isa kernel_isa();

}  // namespace edgec
