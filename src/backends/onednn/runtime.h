// The `onednn` backend's runtime side (see runtime.cpp).
#pragma once

#include "runtime/backend.h"

namespace edgec::runtime {

const Backend& onednn_backend();

}  // namespace edgec::runtime
