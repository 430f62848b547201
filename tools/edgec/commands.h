// The edgec CLI: one file per command, each registering a CLI11 subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "io/npz.h"
#include "ir/program.h"
#include "passes/pipeline.h"
#include "runtime/method.h"

namespace edgec::cli {

void add_opt_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_bench_command(CLI::App& app);

/// Imports a model file (by extension) into an aten program.
/// `fixed_inputs`: an .npz whose arrays fix graph inputs of the same name at
/// compile time (empty: none).
std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions& options,
                                      const std::string& fixed_inputs = "");

/// Reads a whole file; throws CompileError naming the path on failure.
std::string read_file(const std::string& path);
/// Writes `data` to `path` through a temporary file in the same folder and a
/// rename, so readers never see a partial file; throws on failure and leaves
/// no temporary behind.
void write_file_atomically(const std::string& path, std::string_view data);

/// Throws CompileError "WHAT: <error detail> (<Error name>)" for a runtime Error.
[[noreturn]] void runtime_error(const std::string& what, Error err);

/// Binds `arrays` to the program's inputs by name (bind_inputs.cpp); a
/// missing or extra array, or one set_input refuses, is a CompileError
/// starting with `what` (the npz path).
void bind_inputs(const runtime::Program& program, runtime::Method& method, const std::vector<io::NpyArray>& arrays,
                 const std::string& what);

}  // namespace edgec::cli
