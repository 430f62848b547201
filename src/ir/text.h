// The textual IR: a printer and a parser for whole programs, such that
// print(parse(text)) == text for every printed program.
//
//   program dialect = "aten"
//
//   signature {
//     input user_input %x target = "x"
//     input parameter %w target = "fc.weight"
//     input buffer %rm target = "bn.running_mean" persistent = true
//     output user_output %y target = "y"
//   }
//
//   graph {
//     %x = placeholder : f32[batch, 3]
//     %w = placeholder : f32[3]
//     %rm = placeholder : f32[3]
//     %y = aten.add.Tensor(%x, %w) : f32[batch, 3]
//     output(%y)
//   }
//
//   state {
//     "bn.running_mean" = dense<0.0> : f32[3]
//     "fc.weight" = dense<[1.0, 2.0, 3.0]> : f32[3]
//   }
//
// Dimensions: 3 (static), batch or batch<=8 (symbolic), ?<=6 (data-dependent
// with a bound). Tensor data: dense<[...]> flat in row-major order,
// dense<v> when every element is v, opaque<N> for N elided bytes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/program.h"

namespace edgec {

struct PrintOptions {
  /// Tensors with more bytes than this print as opaque<N>; -1 prints all.
  int64_t elide_data_over_bytes = -1;
};

std::string print_program(const Program& program, const PrintOptions& options = {});

struct ParseOptions {
  /// Keep dense<v> data of more than one element as a splat (one element,
  /// TensorData::splat) instead of writing out every element: for a caller
  /// that only prints, or that calls expand_splats before anything reads
  /// the elements (`edgec opt`). A 300-byte file may declare a splat of
  /// gigabytes.
  bool keep_splats = false;
};

/// Parses a program; throws ParseError with line:column on malformed input
/// (including unknown operators and undefined values). Does not verify.
/// Dense data is checked against the memory limit (EDGEC_MEMORY_LIMIT)
/// before it is allocated; kept splats are not allocated.
std::unique_ptr<Program> parse_program(std::string_view text, const std::string& filename,
                                       const ParseOptions& options = {});

/// Writes out every splat of `program` (and of its delegates) element by
/// element, each checked against the memory limit first: a CompileError
/// names the target and its size. `why` ends that message (what needs the
/// elements).
void expand_splats(Program& program, const std::string& why);

/// Formats a float so that it parses back to the same value ("1.0", "1e-07").
std::string format_float(double value, bool single_precision);

}  // namespace edgec
