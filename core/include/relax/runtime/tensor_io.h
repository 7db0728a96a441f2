// Tensors in files: NumPy .npy (read and write) and ONNX TensorProto .pb (read), the formats
// of relax-driver run's --input/--output-dir and of the ONNX test data.
//
//   NDArray x = load_tensor("x.npy");        // by extension: .npy or .pb
//   save_npy("y.npy", y);
//
// .npy: format versions 1.0, 2.0 and 3.0, C order only, little-endian; dtypes bool (|b1),
// int8/16/32/64, uint8/16/32/64, float16/32/64. .pb: a serialised onnx.TensorProto, decoded
// here from the protobuf wire format (dims, data_type, raw_data or the typed *_data fields,
// name; every numeric type incl. float16 and bfloat16, whose bits travel in int32_data); string
// tensors and external data are refused. Every error is a relax::Error naming
// the file (or "<bytes>") and what is wrong with it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "relax/runtime/ndarray.h"

namespace relax::runtime {

NDArray parse_npy(std::span<const uint8_t> bytes, const std::string& what = "<bytes>");
std::vector<uint8_t> serialize_npy(const NDArray& array);
NDArray load_npy(const std::string& path);
void save_npy(const std::string& path, const NDArray& array);

/// Decodes an onnx.TensorProto; `name` (may be null) receives its name field.
NDArray parse_tensor_proto(std::span<const uint8_t> bytes, std::string* name = nullptr,
                           const std::string& what = "<bytes>");
NDArray load_tensor_proto(const std::string& path, std::string* name = nullptr);

/// load_npy or load_tensor_proto by the file's extension (.npy, .pb).
NDArray load_tensor(const std::string& path);

}  // namespace relax::runtime
