// Constructors of every pass; registry.cpp lists them with their summaries.
#pragma once

#include "passes/pass.h"

namespace edgec {

std::unique_ptr<Pass> create_verify_pass(std::string_view options);

}  // namespace edgec
