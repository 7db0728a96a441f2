// Fuzz target: the tensor file readers (relax/runtime/tensor_io.h), .npy and ONNX TensorProto
// .pb, from bytes. The first byte picks the reader (even: .npy, odd: .pb).
// Property: an .npy that reads serialises to bytes that read back to the same shape, dtype and
// contents.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "fuzz_common.h"
#include "relax/runtime/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool npy = data[0] % 2 == 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  std::optional<relax::runtime::NDArray> a;
  relax::fuzz::expect_user_errors_only("fuzz_tensor", [&] {
    a = npy ? relax::runtime::parse_npy(bytes) : relax::runtime::parse_tensor_proto(bytes);
  });
  if (!a || !npy) return 0;
  std::vector<uint8_t> saved = relax::runtime::serialize_npy(*a);
  std::optional<relax::runtime::NDArray> b;
  try {
    b = relax::runtime::parse_npy(saved);
  } catch (const relax::Error& e) {
    relax::fuzz::property(false, "fuzz_tensor", std::string("saved .npy does not read back: ") + e.what());
  }
  relax::fuzz::property(relax::runtime::serialize_npy(*b) == saved, "fuzz_tensor", "saved .npy reads back different");
  return 0;
}
