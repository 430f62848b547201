#include "kernels/kernel_checks.h"

#include <string>

namespace edgec {

namespace {

// "1 input", "2 inputs".
std::string count_of(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

Error check_arity(std::string_view op, std::span<const Tensor> inputs, size_t num_inputs,
                  std::span<Tensor> outputs, size_t num_outputs) {
  if (inputs.size() != num_inputs) {
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + count_of(num_inputs, "input") +
                                            ", got " + std::to_string(inputs.size()));
  }
  return check_num_outputs(op, outputs, num_outputs);
}

Error check_num_outputs(std::string_view op, std::span<Tensor> outputs, size_t num_outputs) {
  if (outputs.size() != num_outputs) {
    return fail(Error::InvalidArgument, std::string(op) + ": expected " + count_of(num_outputs, "output") +
                                            ", got " + std::to_string(outputs.size()));
  }
  return Error::Ok;
}

Error check_output_dtype(std::string_view op, const Tensor& out, DType expected) {
  if (out.dtype == expected) return Error::Ok;
  return fail(Error::InvalidType, std::string(op) + ": expected output dtype " +
                                      std::string(dtype_name(expected)) + ", got " +
                                      std::string(dtype_name(out.dtype)));
}

Error resize_output(std::string_view op, Tensor& out, std::span<const int64_t> shape) {
  const Error err = out.resize(shape);
  if (err != Error::Ok) set_error_detail(std::string(op) + ": " + error_detail());
  return err;
}

}  // namespace edgec
