// Winograd F(4x4, 3x3): see winograd.h. With alpha = 6 points (0, +-1,
// +-2, inf) the transforms are, for one dimension,
//   input  V = B^T d  (6 -> 6), weights U = G g (3 -> 6), output Y = A^T M (6 -> 4),
// applied along rows and then columns of each tile. The work is cut into
// blocks of output tiles, one thread per block: the block's input tiles
// are transformed into V[36][tiles][cin], multiplied by U[36][cin][cout]
// position by position (a register-tiled micro-kernel, 6 or 12 tiles x 16 output
// channels) into M[36][tiles][cout], and M transformed back into the
// output with bias, residual and ReLU applied on the way out. A block's V
// and M are sized to stay in the core's L2.
//
// The transforms and products are built per instruction set
// (isa/winograd.cpp: GCC vector extensions, 8 channels of the blocked layout
// per vector, and the register tile of kernels/isa/tile.h); this file
// chooses the blocking and dispatches.
#include "backends/onednn/winograd.h"

#include <algorithm>

#include "kernels/isa.h"
#include "kernels/isa/kernels.h"

namespace edgec {
namespace {

using namespace winograd;

inline int64_t padded(int64_t cout) { return (cout + kNR - 1) / kNR * kNR; }

WinogradBlocking blocking(const Winograd43Shape& s, int threads) {
  WinogradBlocking b;
  b.tiles_h = (s.oh + kTile - 1) / kTile;
  b.tiles_w = (s.ow + kTile - 1) / kTile;
  b.tiles = s.n * b.tiles_h * b.tiles_w;
  const int64_t most = std::clamp<int64_t>(kBlockFloats / (kPoints * (s.cin + padded(s.cout))), kMR, 8 * kMR);
  const int64_t t = std::max(threads, 1);
  // A whole number of blocks per thread, as even as the tiles allow.
  b.blocks = t * ((b.tiles + t * most - 1) / (t * most));
  b.per_block = (b.tiles + b.blocks - 1) / b.blocks;
  return b;
}

}  // namespace

bool winograd43_supported(const Winograd43Shape& s) {
  return s.n > 0 && s.cin > 0 && s.cout > 0 && s.cin % 8 == 0 && s.cout % 8 == 0 && s.h > 0 && s.w > 0 &&
         s.oh > 0 && s.ow > 0 && s.pad_top >= 0 && s.pad_left >= 0;
}

int64_t winograd43_weights_floats(int64_t cin, int64_t cout) { return kPoints * cin * padded(cout); }

void winograd43_transform_weights(const float* w, int64_t cout, int64_t cin, float* u) {
  auto* f = EDGEC_ISA_KERNEL(winograd43_transform_weights);
  f(w, cout, cin, u);
}

int64_t winograd43_scratch_floats(const Winograd43Shape& s, int threads) {
  const WinogradBlocking b = blocking(s, threads);
  return std::max(threads, 1) * kPoints * b.per_block * (s.cin + padded(s.cout));
}

void winograd43_conv(const Winograd43Shape& s, const float* x, const float* u, const float* bias,
                     const float* residual, float* y, bool relu, float* scratch, int threads) {
  threads = std::max(threads, 1);
  const WinogradBlocking b = blocking(s, threads);
  auto* f = EDGEC_ISA_KERNEL(winograd43_conv);
  f(s, b, x, u, bias, residual, y, relu, scratch, threads);
}

}  // namespace edgec
