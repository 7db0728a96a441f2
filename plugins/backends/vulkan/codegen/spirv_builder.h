// A word-level SPIR-V module builder: fresh ids, the logical sections of a module in the order
// the specification requires (capabilities, extensions, extended-instruction imports, memory
// model, entry points, execution modes, debug names, decorations, types/constants/globals,
// functions), and types and constants deduplicated (asking twice for `int32` or for the
// constant 1 of it gives one id). Knows nothing of TIR: the emitter (spirv_emitter.h) drives it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

namespace relax::vulkan {

class SpirvBuilder {
 public:
  /// Sections of a module, in their required order.
  enum Section { kCapability, kExtension, kExtImport, kMemoryModel, kEntryPoint, kExecMode,
                 kDebug, kAnnotation, kGlobal, kFunction, kNumSections };

  uint32_t fresh_id() { return next_id_++; }

  /// Appends one instruction (`op` followed by `operands`) to `section`.
  void inst(Section section, spv::Op op, const std::vector<uint32_t>& operands);
  /// Appends one encoded instruction to `out`.
  static void append(std::vector<uint32_t>& out, spv::Op op, const std::vector<uint32_t>& operands);
  /// Appends already encoded instructions to `section`.
  void raw(Section section, const std::vector<uint32_t>& words) {
    sections_[section].insert(sections_[section].end(), words.begin(), words.end());
  }
  /// Appends an instruction to the function section.
  void code(spv::Op op, const std::vector<uint32_t>& operands) { inst(kFunction, op, operands); }
  /// The words of `s` as a SPIR-V literal string (nul-terminated, padded to a word).
  static std::vector<uint32_t> literal(const std::string& s);

  void capability(spv::Capability c) { capabilities_.insert(uint32_t(c)); }
  void extension(const std::string& name) { extensions_.insert(name); }
  /// The id of the GLSL.std.450 import (added on first use).
  uint32_t glsl();

  /// A deduplicated type or constant: `op` with `operands` (no result id) in kGlobal; the
  /// same (op, operands) gives the same id.
  uint32_t unique(spv::Op op, const std::vector<uint32_t>& operands, bool has_type = false);

  uint32_t type_void() { return unique(spv::Op::OpTypeVoid, {}); }
  uint32_t type_bool() { return unique(spv::Op::OpTypeBool, {}); }
  uint32_t type_int(int bits, bool is_signed);
  uint32_t type_float(int bits);
  uint32_t type_vector(uint32_t elem, uint32_t n) { return unique(spv::Op::OpTypeVector, {elem, n}); }
  uint32_t type_pointer(spv::StorageClass sc, uint32_t elem) {
    return unique(spv::Op::OpTypePointer, {uint32_t(sc), elem});
  }
  /// An array of `n` elements without an ArrayStride decoration.
  uint32_t type_array(uint32_t elem, uint32_t n);
  /// A fresh (not deduplicated) struct type: callers decorate it.
  uint32_t type_struct(const std::vector<uint32_t>& members);
  /// A fresh runtime array type (callers decorate its ArrayStride).
  uint32_t type_runtime_array(uint32_t elem);
  uint32_t type_function(uint32_t ret, const std::vector<uint32_t>& params);

  /// A scalar integer constant of `type` (`bits` wide, signed or not): the low bits of `value`.
  uint32_t const_int(uint32_t type, int bits, bool is_signed, uint64_t value);
  /// A scalar float constant of `type` (16, 32 or 64 bits).
  uint32_t const_float(uint32_t type, int bits, double value);
  uint32_t const_bool(bool v);

  /// Debug name of `id`.
  void name(uint32_t id, const std::string& n) {
    std::vector<uint32_t> ops{id};
    for (uint32_t w : literal(n)) ops.push_back(w);
    inst(kDebug, spv::Op::OpName, ops);
  }
  void decorate(uint32_t id, spv::Decoration d, const std::vector<uint32_t>& args = {});
  void member_decorate(uint32_t id, uint32_t member, spv::Decoration d,
                       const std::vector<uint32_t>& args = {});

  /// The finished module: header (SPIR-V `version`, bound) and sections in order.
  std::vector<uint32_t> finish(uint32_t version);

 private:
  uint32_t next_id_ = 1;
  std::vector<uint32_t> sections_[kNumSections];
  std::set<uint32_t> capabilities_;
  std::set<std::string> extensions_;
  std::map<std::vector<uint32_t>, uint32_t> unique_;
  uint32_t glsl_ = 0;
};

}  // namespace relax::vulkan
