// Constructors of the passes of this layer; compiler/pass_registry.cpp lists
// them, with the lowering layer's, and their summaries.
#pragma once

#include "passes/pass.h"

namespace edgec {

std::unique_ptr<Pass> create_verify_pass(std::string_view options);
std::unique_ptr<Pass> create_to_edge_pass(std::string_view options);
std::unique_ptr<Pass> create_dce_pass(std::string_view options);
std::unique_ptr<Pass> create_constant_prop_pass(std::string_view options);
std::unique_ptr<Pass> create_fuse_gelu_pass(std::string_view options);
std::unique_ptr<Pass> create_fuse_qdq_pass(std::string_view options);
std::unique_ptr<Pass> create_memory_plan_pass(std::string_view options);

}  // namespace edgec
