// The edgec C++ runtime API in one include: runtime::Program (load and
// validate a compiled .edgec file), runtime::Method (one execution state:
// set_input, execute, output), Tensor (a view of memory owned elsewhere)
// and Error / Result (the runtime never throws). Link edgec::runtime
// (find_package(edgec)) or `pkg-config --libs edgec`.
//
// The headers it includes keep their paths relative to the source tree
// (runtime/, kernels/, base/), installed under include/edgec/.
#pragma once

#include "base/dtype.h"
#include "base/error.h"
#include "kernels/tensor.h"
#include "runtime/method.h"
#include "runtime/program.h"
