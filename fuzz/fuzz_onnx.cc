// Fuzz target: the ONNX importer (plugins/frontends/onnx, compiled into this program), from the
// model's bytes as import_file reads them to the imported IRModule.
//
// The bytes go through a file (the importer's entry point reads one, and names it in errors):
// one per process, rewritten for every input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_common.h"
#include "importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The process id in a fixed width: the path's length must not vary from run to run, or the
  // heap does and with it the coverage of the same input (fuzz/README.md, the smoke runs).
  static const std::string path = [] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "/tmp/relax_fuzz_onnx_%010d.onnx", int(getpid()));
    return std::string(buf);
  }();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  relax::fuzz::expect_user_errors_only("fuzz_onnx", [&] {
    relax::onnx_frontend::import_file(path, {});
  });
  return 0;
}
