// The `reference` backend's runtime side (see runtime.cpp).
#pragma once

#include "runtime/backend.h"

namespace edgec::runtime {

const Backend& reference_backend();

}  // namespace edgec::runtime
