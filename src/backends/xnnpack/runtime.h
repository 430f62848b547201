// The `xnnpack` backend's runtime side (see runtime.cpp).
#pragma once

#include "runtime/backend.h"

namespace edgec::runtime {

const Backend& xnnpack_backend();

}  // namespace edgec::runtime
