// The onednn delegate's integer operators (runtime_quant.cpp): qlinear_conv
// and qlinear_matmul on oneDNN 2.6's int8 convolution and matmul (u8 or s8
// source, s8 weights, int32 accumulation, requantized through output
// scales and zero points). The checks are the operator table's (op_table.cpp,
// shared by the partitioner and the runtime); the builders run at init.
// docs/architecture.md, "The built-in backends", says what is exact where.
#pragma once

#include <optional>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/call_view.h"
#include "runtime/program.h"

namespace edgec::runtime::onednn {
struct Ctx;
}  // namespace edgec::runtime::onednn

namespace edgec::onednn {

/// What oneDNN's int8 convolution needs beyond static shapes: u8 or s8
/// source, constant s8 weights, constant per-tensor scales and zero points
/// for x and y, a per-tensor or per-output-channel weight scale, an int32
/// bias. (That the weights' zero point is all 0 needs its values: the
/// partitioner checks it, partitioner.cpp.)
std::optional<std::string> check_qlinear_conv(const CallView& call);
/// The same for qlinear_matmul: a of rank 2 or more, constant s8 b with
/// batch dims of 1, b's scale per tensor or per column.
std::optional<std::string> check_qlinear_matmul(const CallView& call);
/// The operand that must hold zeros only (the weights' zero point) of a
/// quantized row, or -1 for another operator.
int quantized_zero_operand(std::string_view op);

}  // namespace edgec::onednn

namespace edgec::runtime::onednn {

Error build_qlinear_conv(Ctx& c);
Error build_qlinear_matmul(Ctx& c);
/// Whether oneDNN's int8 kernels on this machine (as the delegate holds
/// it: EDGEC_ISA=avx2 holds oneDNN to AVX2) use VNNI, where u8 x s8 sums
/// are exact. Without it the delegate picks oneDNN's exact reference
/// implementation (runtime_quant.cpp says why).
bool int8_vnni();
/// What one int8 multiply-add of the delegate's qlinear_conv /
/// qlinear_matmul costs in f32 multiply-adds on this machine, from the ISA
/// oneDNN runs here (queried at run time): with VNNI, vpdpbusd does four
/// u8 x s8 multiply-adds per 32-bit lane where an f32 FMA does one (1/4);
/// without, the delegate runs oneDNN's scalar reference code, one
/// multiply-add per instruction against the f32 vector's lanes (16 with
/// AVX-512, 8 with AVX2, 4 below). threads_for (runtime_ops.cpp) scales
/// the rows' work by it.
double int8_multiply_add_cost();
/// Which operand of `op` holds the weights the compiler may store in
/// oneDNN's layout: 3 for qlinear_conv and qlinear_matmul, 1 for conv.
size_t stored_weights_operand(std::string_view op);
/// oneDNN's dims of the int8 weights a qlinear_conv or qlinear_matmul
/// reads stored in oneDNN's layout, from its weights_shape attribute
/// ((g,) O, I, k... for the convolution, K, N for the matmul); throws
/// InvalidPayload when the attribute is missing or does not fit.
dnnl::memory::dims stored_qlinear_weights_dims(const Instruction& in);

}  // namespace edgec::runtime::onednn
