// A program that links only the edgec_runtime library, as a device build
// would: it loads a program file, creates a Method and runs it once with
// its inputs zeroed. tests/link/runtime_link_test.sh links it and reads
// its symbols: the runtime must link without the compiler, ONNX or
// protobuf, and must not drag any of them in.
#include <cstdio>
#include <vector>

#include "runtime/method.h"
#include "runtime/program.h"

int main(int argc, char** argv) {
  using namespace edgec;
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime_only PROGRAM.edgec\n");
    return 2;
  }
  auto program = runtime::Program::load(argv[1]);
  if (!program.ok()) {
    std::fprintf(stderr, "load: %s\n", error_detail().c_str());
    return 1;
  }
  auto method = runtime::Method::create(**program, 1);
  if (!method.ok()) {
    std::fprintf(stderr, "method: %s\n", error_detail().c_str());
    return 1;
  }
  std::printf("loaded %zu instructions, %zu delegates\n", (*program)->instructions().size(),
              (*program)->delegates().size());
  return 0;
}
