// The word-level SPIR-V builder (spirv_builder.h).
#include "spirv_builder.h"

#include <cstring>

#include "relax/support/diagnostic.h"

namespace relax::vulkan {

void SpirvBuilder::inst(Section section, spv::Op op, const std::vector<uint32_t>& operands) {
  append(sections_[section], op, operands);
}

void SpirvBuilder::append(std::vector<uint32_t>& out, spv::Op op,
                          const std::vector<uint32_t>& operands) {
  uint32_t count = uint32_t(operands.size()) + 1;
  RX_ICHECK(count < 0x10000) << "SPIR-V instruction too long";
  out.push_back((count << 16) | uint32_t(op));
  out.insert(out.end(), operands.begin(), operands.end());
}

std::vector<uint32_t> SpirvBuilder::literal(const std::string& s) {
  std::vector<uint32_t> words(s.size() / 4 + 1, 0);
  std::memcpy(words.data(), s.data(), s.size());
  return words;
}

uint32_t SpirvBuilder::glsl() {
  if (glsl_ == 0) {
    glsl_ = fresh_id();
    std::vector<uint32_t> ops{glsl_};
    for (uint32_t w : literal("GLSL.std.450")) ops.push_back(w);
    inst(kExtImport, spv::Op::OpExtInstImport, ops);
  }
  return glsl_;
}

uint32_t SpirvBuilder::unique(spv::Op op, const std::vector<uint32_t>& operands, bool has_type) {
  std::vector<uint32_t> key{uint32_t(op)};
  key.insert(key.end(), operands.begin(), operands.end());
  auto it = unique_.find(key);
  if (it != unique_.end()) return it->second;
  uint32_t id = fresh_id();
  std::vector<uint32_t> ops;
  if (has_type) {  // constants: result type, result id, values
    ops.push_back(operands.at(0));
    ops.push_back(id);
    ops.insert(ops.end(), operands.begin() + 1, operands.end());
  } else {
    ops.push_back(id);
    ops.insert(ops.end(), operands.begin(), operands.end());
  }
  inst(kGlobal, op, ops);
  unique_.emplace(std::move(key), id);
  return id;
}

uint32_t SpirvBuilder::type_int(int bits, bool is_signed) {
  switch (bits) {
    case 8: case 16: case 32: case 64: break;
    default: RX_IFAIL() << "SPIR-V has no " << bits << "-bit integer type";
  }
  return unique(spv::Op::OpTypeInt, {uint32_t(bits), is_signed ? 1u : 0u});
}

uint32_t SpirvBuilder::type_float(int bits) {
  RX_ICHECK(bits == 16 || bits == 32 || bits == 64) << "no " << bits << "-bit float type";
  return unique(spv::Op::OpTypeFloat, {uint32_t(bits)});
}

uint32_t SpirvBuilder::type_array(uint32_t elem, uint32_t n) {
  uint32_t len = const_int(type_int(32, false), 32, false, n);
  return unique(spv::Op::OpTypeArray, {elem, len});
}

uint32_t SpirvBuilder::type_struct(const std::vector<uint32_t>& members) {
  uint32_t id = fresh_id();
  std::vector<uint32_t> ops{id};
  ops.insert(ops.end(), members.begin(), members.end());
  inst(kGlobal, spv::Op::OpTypeStruct, ops);
  return id;
}

uint32_t SpirvBuilder::type_runtime_array(uint32_t elem) {
  uint32_t id = fresh_id();
  inst(kGlobal, spv::Op::OpTypeRuntimeArray, {id, elem});
  return id;
}

uint32_t SpirvBuilder::type_function(uint32_t ret, const std::vector<uint32_t>& params) {
  std::vector<uint32_t> ops{ret};
  ops.insert(ops.end(), params.begin(), params.end());
  return unique(spv::Op::OpTypeFunction, ops);
}

uint32_t SpirvBuilder::const_int(uint32_t type, int bits, bool is_signed, uint64_t value) {
  if (bits < 64) value &= (uint64_t(1) << bits) - 1;
  // Narrower than a word: high bits zero for unsigned types, the sign extended for signed ones.
  if (is_signed && bits < 32 && (value >> (bits - 1)) & 1) value |= ~uint64_t(0) << bits;
  if (bits <= 32) return unique(spv::Op::OpConstant, {type, uint32_t(value)}, true);
  return unique(spv::Op::OpConstant, {type, uint32_t(value), uint32_t(value >> 32)}, true);
}

uint32_t SpirvBuilder::const_float(uint32_t type, int bits, double value) {
  if (bits == 64) {
    uint64_t u;
    std::memcpy(&u, &value, 8);
    return unique(spv::Op::OpConstant, {type, uint32_t(u), uint32_t(u >> 32)}, true);
  }
  float f = float(value);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (bits == 32) return unique(spv::Op::OpConstant, {type, u}, true);
  // float16: the float32 bits rounded to half (round to nearest even), kept in the low 16 bits.
  uint32_t sign = (u >> 16) & 0x8000u;
  int32_t exp = int32_t((u >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = u & 0x7FFFFFu;
  uint32_t h;
  if (((u >> 23) & 0xFF) == 0xFF) {
    h = sign | 0x7C00u | (mant ? 0x200u : 0u);
  } else if (exp >= 31) {
    h = sign | 0x7C00u;
  } else if (exp <= 0) {
    if (exp < -10) {
      h = sign;
    } else {
      mant |= 0x800000u;
      uint32_t shift = uint32_t(14 - exp);
      uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1))) ++half;
      h = sign | half;
    }
  } else {
    uint32_t half = (uint32_t(exp) << 10) | (mant >> 13), rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into inf: right
    h = sign | half;
  }
  return unique(spv::Op::OpConstant, {type, h}, true);
}

uint32_t SpirvBuilder::const_bool(bool v) {
  return unique(v ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, {type_bool()}, true);
}

void SpirvBuilder::decorate(uint32_t id, spv::Decoration d, const std::vector<uint32_t>& args) {
  std::vector<uint32_t> ops{id, uint32_t(d)};
  ops.insert(ops.end(), args.begin(), args.end());
  inst(kAnnotation, spv::Op::OpDecorate, ops);
}

void SpirvBuilder::member_decorate(uint32_t id, uint32_t member, spv::Decoration d,
                                   const std::vector<uint32_t>& args) {
  std::vector<uint32_t> ops{id, member, uint32_t(d)};
  ops.insert(ops.end(), args.begin(), args.end());
  inst(kAnnotation, spv::Op::OpMemberDecorate, ops);
}

std::vector<uint32_t> SpirvBuilder::finish(uint32_t version) {
  std::vector<uint32_t> out = {0x07230203u, version, 0u, next_id_, 0u};
  for (uint32_t c : capabilities_) {
    out.push_back((2u << 16) | uint32_t(spv::Op::OpCapability));
    out.push_back(c);
  }
  for (const std::string& e : extensions_) {
    std::vector<uint32_t> w = literal(e);
    out.push_back((uint32_t(w.size() + 1) << 16) | uint32_t(spv::Op::OpExtension));
    out.insert(out.end(), w.begin(), w.end());
  }
  for (int s = kExtImport; s < kNumSections; ++s)
    out.insert(out.end(), sections_[s].begin(), sections_[s].end());
  return out;
}

}  // namespace relax::vulkan
