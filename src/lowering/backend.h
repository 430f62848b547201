// The ahead-of-time side of a backend (docs/architecture.md "Data flow"): a partitioner
// that says which calls the backend takes and why it refuses the others
// (docs/semantics.md §4.1), and preprocess, which turns a delegate program into the
// payload the backend's runtime side initializes from.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace edgec {

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  /// The backend id the partitions are for ("reference", "onednn").
  virtual const std::string& backend() const = 0;
  /// nullopt when the backend takes `call`, else a one-line reason it does
  /// not ("operator sin is not in the operator set"). Never changes the
  /// graph. Never called for call_delegate nodes (those are refused by the
  /// partition pass itself).
  virtual std::optional<std::string> refuse(const Program& program, const Node& call) const = 0;
};

class BackendCompiler {
 public:
  /// `id`: the backend's id, the same string as its runtime side's and its
  /// CMake id; `summary`: one line saying what it takes.
  BackendCompiler(std::string id, std::string summary) : id_(std::move(id)), summary_(std::move(summary)) {}
  virtual ~BackendCompiler() = default;
  const std::string& id() const { return id_; }
  const std::string& summary() const { return summary_; }
  /// A partitioner configured by `options` (what follows "id:" in
  /// `--backends`, e.g. "matmul+add"; empty: the backend's default).
  /// Throws CompileError on options it does not understand.
  virtual std::unique_ptr<Partitioner> make_partitioner(const std::string& options) const = 0;
  /// Turns a verified, memory-planned delegate program into payload bytes.
  /// The payload names the constants it reads by target; their bytes are
  /// stored once in the file as named data (docs/semantics.md §6), never in the
  /// payload. Throws CompileError: a second placeholder for a target the
  /// builder already has a slot for is a build error (docs/semantics.md §6).
  virtual std::vector<std::byte> preprocess(const Program& delegate) const = 0;
  /// After memory planning, before preprocess: may store some of the
  /// delegate's constants in the form its runtime reads in place (oneDNN's
  /// blocked weights). Such a constant gets a new target whose bytes have
  /// the same type and size, and the calls reading it attributes saying the
  /// layout. Targets in `shared` (read by another program of the file) are
  /// left as they are, so every weight is still stored once. Never changes
  /// what the delegate computes. Default: nothing.
  virtual void prepare_constants(Program& delegate, const std::set<std::string>& shared) const {
    (void)delegate;
    (void)shared;
  }
  /// Why this backend cannot compile for `target` (its stored weights fit
  /// only other machines), or nullopt when it can. Default: every target.
  virtual std::optional<std::string> refuse_target(Target target) const {
    (void)target;
    return std::nullopt;
  }

 private:
  std::string id_, summary_;
};

}  // namespace edgec
