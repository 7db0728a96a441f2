// Scalar and vector element types, laid out like DLPack's DLDataType so that the IR, the
// runtime and the C ABI agree on one encoding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace relax {

/// An element type: a code (int, uint, float, bfloat, handle), a width in bits and a number
/// of vector lanes. `Void()` (bits 0) also stands for "unknown dtype" in Relax struct info.
struct DataType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3, kBFloat = 4 };

  uint8_t code = kHandle;
  uint8_t bits = 0;
  uint16_t lanes = 0;

  constexpr DataType() = default;
  constexpr DataType(uint8_t c, uint8_t b, uint16_t l = 1) : code(c), bits(b), lanes(l) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {kInt, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {kUInt, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {kFloat, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType BFloat(int bits, int lanes = 1) { return {kBFloat, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType Bool(int lanes = 1) { return {kUInt, 1, uint16_t(lanes)}; }
  static constexpr DataType Handle() { return {kHandle, 64, 1}; }
  /// The void / unknown type.
  static constexpr DataType Void() { return {kHandle, 0, 0}; }

  constexpr bool is_void() const { return code == kHandle && bits == 0; }
  constexpr bool is_int() const { return code == kInt; }
  constexpr bool is_uint() const { return code == kUInt && bits != 1; }
  constexpr bool is_bool() const { return code == kUInt && bits == 1; }
  constexpr bool is_float() const { return code == kFloat || code == kBFloat; }
  constexpr bool is_handle() const { return code == kHandle && bits != 0; }
  /// Signed or unsigned integer, including bool.
  constexpr bool is_integer_like() const { return code == kInt || code == kUInt; }
  constexpr bool is_scalar() const { return lanes == 1; }
  constexpr bool is_vector() const { return lanes > 1; }
  /// The same type with one lane.
  constexpr DataType element_of() const { return {code, bits, 1}; }
  constexpr DataType with_lanes(int l) const { return {code, bits, uint16_t(l)}; }
  /// Bytes one element occupies in memory (bool takes a byte).
  constexpr int bytes() const { return (bits * lanes + 7) / 8; }

  friend constexpr bool operator==(DataType a, DataType b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
  }
  friend constexpr bool operator!=(DataType a, DataType b) { return !(a == b); }

  /// "float32", "int64", "bool", "float32x4", "handle", "void".
  std::string to_string() const;
  /// Parses what to_string writes; nullopt for anything else.
  static std::optional<DataType> parse(std::string_view text);
};

}  // namespace relax
