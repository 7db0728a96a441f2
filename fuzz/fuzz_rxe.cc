// Fuzz target: the .rxe loader (Executable::load), VM creation and a run of "main".
//
// Before loading, the header's payload size and checksum are recomputed for the mutated bytes
// (else nearly every input stops at those checks). The kernel libraries load through the
// loaders registered here: only "tir-interp" (its TIR text is parsed back), so no fuzzed
// bytes reach dlopen. "main" runs on random inputs made from its recorded parameter types
// (symbolic dims 1), under instruction, call-depth and allocation limits.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/inputs.h"
#include "fuzz_common.h"
#include "relax/runtime/executable.h"
#include "relax/runtime/vm.h"
#include "relax/target/build.h"

namespace {

constexpr size_t kHeaderSize = 32;  // magic 8, version 4, flags 4, payload size 8, checksum 8

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool registered = (relax::target::register_tir_interp_loader(), true);
  (void)registered;
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= kHeaderSize) {
    uint64_t payload = bytes.size() - kHeaderSize;
    std::memcpy(bytes.data() + 16, &payload, sizeof(payload));
    uint64_t sum = relax::runtime::fnv1a64(std::span<const uint8_t>(bytes).subspan(kHeaderSize));
    std::memcpy(bytes.data() + 24, &sum, sizeof(sum));
  }
  relax::fuzz::expect_user_errors_only("fuzz_rxe", [&] {
    auto exec = relax::runtime::Executable::load(bytes);
    relax::runtime::VMOptions options;
    options.max_instructions = 100000;
    options.max_call_depth = 200;
    options.max_alloc_bytes = uint64_t(256) << 20;
    options.max_idle_storage_bytes = uint64_t(256) << 20;  // the storage pool's idle blocks
    auto vm = relax::runtime::VirtualMachine::create(exec, {}, options);
    int64_t main = exec->find_function("main");
    if (main < 0) return;
    auto inputs = relax::tools::make_inputs({}, exec->functions[size_t(main)]);
    vm->invoke("main", inputs);
  });
  return 0;
}
