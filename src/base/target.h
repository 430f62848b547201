// The machine a program is compiled for (docs/architecture.md, "Targets").
// A target picks the delegates that partition a program, in their order,
// and so the layouts of the weights stored for them; the file format itself
// is the same on every host (little-endian, sizes and alignment fixed by
// src/serialize/format.h). The file records its target, and the loader
// names both targets when a program cannot run on this machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace edgec {

/// Stored in the program file (program.fbs, Program.target): values never
/// change. 0 is a file written before targets were recorded (x86-64: the
/// only target then).
enum class Target : uint8_t { X86_64 = 1, Aarch64 = 2 };

/// The target this edgec runs on, which `edgec compile` picks by default.
#if defined(__aarch64__)
inline constexpr Target kHostTarget = Target::Aarch64;
#else
inline constexpr Target kHostTarget = Target::X86_64;
#endif

/// "x86-64" or "aarch64", as `--target` spells them.
constexpr std::string_view target_name(Target t) { return t == Target::Aarch64 ? "aarch64" : "x86-64"; }

/// The target `--target NAME` names ("x86-64", "x86_64", "amd64"; "aarch64",
/// "arm64"), or nullopt.
constexpr std::optional<Target> parse_target(std::string_view name) {
  if (name == "x86-64" || name == "x86_64" || name == "amd64") return Target::X86_64;
  if (name == "aarch64" || name == "arm64") return Target::Aarch64;
  return std::nullopt;
}

/// The target a file's recorded value means (0: x86-64), or nullopt for a
/// value no edgec writes.
constexpr std::optional<Target> target_from_file(uint8_t value) {
  if (value == 0 || value == static_cast<uint8_t>(Target::X86_64)) return Target::X86_64;
  if (value == static_cast<uint8_t>(Target::Aarch64)) return Target::Aarch64;
  return std::nullopt;
}

}  // namespace edgec
