// SPIR-V kernels and library helpers of the Vulkan runtime tests (see vk_test_util.h).
#include "vk_test_util.h"

#include <cstring>
#include <sstream>

namespace relax::vktest {

std::vector<uint8_t> assemble(const std::string& text) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string messages;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
        messages += "line " + std::to_string(pos.line) + ": " + m + "\n";
      });
  std::vector<uint32_t> words;
  if (!tools.Assemble(text, &words, SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS) ||
      !tools.Validate(words)) {
    ADD_FAILURE() << "bad test kernel:\n" << messages << text;
    return {};
  }
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

namespace {

/// The common head of the test kernels: types, the GlobalInvocationId input.
const char* kHead = R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
)";

const char* kTypes = R"(
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%i32 = OpTypeInt 32 1
%f32 = OpTypeFloat 32
%bool = OpTypeBool
%v3u = OpTypeVector %u32 3
%pin = OpTypePointer Input %v3u
%gid = OpVariable %pin Input
%c0 = OpConstant %i32 0
)";

}  // namespace

gpu::KernelInfo offset_copy_kernel(const std::string& name) {
  std::ostringstream s;
  s << kHead << "OpEntryPoint GLCompute %main \"" << name << "\" %gid\n"
    << R"(OpExecutionMode %main LocalSize 64 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %rarr ArrayStride 4
OpMemberDecorate %sbuf 0 Offset 0
OpDecorate %sbuf Block
OpDecorate %x DescriptorSet 0
OpDecorate %x Binding 0
OpDecorate %y DescriptorSet 0
OpDecorate %y Binding 1
OpMemberDecorate %pc 0 Offset 0
OpMemberDecorate %pc 1 Offset 4
OpMemberDecorate %pc 2 Offset 8
OpDecorate %pc Block
)" << kTypes
    << R"(%c1 = OpConstant %i32 1
%c2 = OpConstant %i32 2
%two = OpConstant %f32 2
%rarr = OpTypeRuntimeArray %f32
%sbuf = OpTypeStruct %rarr
%psbuf = OpTypePointer StorageBuffer %sbuf
%x = OpVariable %psbuf StorageBuffer
%y = OpVariable %psbuf StorageBuffer
%pc = OpTypeStruct %i32 %i32 %i32
%ppc = OpTypePointer PushConstant %pc
%params = OpVariable %ppc PushConstant
%ppi = OpTypePointer PushConstant %i32
%pf = OpTypePointer StorageBuffer %f32
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3u %gid
%gx = OpCompositeExtract %u32 %g 0
%i = OpBitcast %i32 %gx
%pn = OpAccessChain %ppi %params %c0
%n = OpLoad %i32 %pn
%ok = OpSLessThan %bool %i %n
OpSelectionMerge %end None
OpBranchConditional %ok %body %end
%body = OpLabel
%pox = OpAccessChain %ppi %params %c1
%ox = OpLoad %i32 %pox
%poy = OpAccessChain %ppi %params %c2
%oy = OpLoad %i32 %poy
%ix = OpIAdd %i32 %ox %i
%iy = OpIAdd %i32 %oy %i
%px = OpAccessChain %pf %x %c0 %ix
%vx = OpLoad %f32 %px
%vy = OpFMul %f32 %vx %two
%py = OpAccessChain %pf %y %c0 %iy
OpStore %py %vy
OpBranch %end
%end = OpLabel
OpReturn
OpFunctionEnd
)";
  gpu::KernelInfo k;
  k.name = name;
  k.block = {64, 1, 1};
  k.buffer_dtypes = {kF32, kF32};
  k.scalar_dtypes = {kI32};
  k.code = assemble(s.str());
  return k;
}

gpu::KernelInfo scalar_sum_kernel(int nscalars) {
  // Members: the scalars, then the element offset of `out`, all int32 (spirv_abi.h).
  bool ubo = (nscalars + 1) * 4 > 128;
  const char* cls = ubo ? "Uniform" : "PushConstant";
  std::ostringstream s;
  s << kHead << "OpEntryPoint GLCompute %main \"scalar_sum\" %gid\n"
    << "OpExecutionMode %main LocalSize 64 1 1\n"
    << "OpDecorate %gid BuiltIn GlobalInvocationId\n"
    << "OpDecorate %rarr ArrayStride 4\nOpMemberDecorate %sbuf 0 Offset 0\nOpDecorate %sbuf Block\n"
    << "OpDecorate %out DescriptorSet 0\nOpDecorate %out Binding 0\n";
  for (int k = 0; k <= nscalars; ++k)
    s << "OpMemberDecorate %pb " << k << " Offset " << 4 * k << "\n";
  s << "OpDecorate %pb Block\n";
  if (ubo) s << "OpDecorate %params DescriptorSet 0\nOpDecorate %params Binding 1\n";
  s << kTypes << "%rarr = OpTypeRuntimeArray %i32\n%sbuf = OpTypeStruct %rarr\n"
    << "%psbuf = OpTypePointer StorageBuffer %sbuf\n%out = OpVariable %psbuf StorageBuffer\n"
    << "%pi = OpTypePointer StorageBuffer %i32\n%pb = OpTypeStruct";
  for (int k = 0; k <= nscalars; ++k) s << " %i32";
  s << "\n%ppb = OpTypePointer " << cls << " %pb\n%params = OpVariable %ppb " << cls << "\n"
    << "%ppi = OpTypePointer " << cls << " %i32\n";
  for (int k = 0; k <= nscalars; ++k) s << "%k" << k << " = OpConstant %i32 " << k << "\n";
  s << "%main = OpFunction %void None %fn\n%entry = OpLabel\n%g = OpLoad %v3u %gid\n"
    << "%gx = OpCompositeExtract %u32 %g 0\n%acc0 = OpBitcast %i32 %gx\n";
  for (int k = 0; k < nscalars; ++k) {
    s << "%p" << k << " = OpAccessChain %ppi %params %k" << k << "\n"
      << "%v" << k << " = OpLoad %i32 %p" << k << "\n"
      << "%w" << k << " = OpIMul %i32 %v" << k << " %k" << (k + 1) << "\n"
      << "%acc" << (k + 1) << " = OpIAdd %i32 %acc" << k << " %w" << k << "\n";
  }
  s << "%poff = OpAccessChain %ppi %params %k" << nscalars << "\n%off = OpLoad %i32 %poff\n"
    << "%at = OpIAdd %i32 %off %acc0\n%dst = OpAccessChain %pi %out %c0 %at\n"
    << "OpStore %dst %acc" << nscalars << "\nOpReturn\nOpFunctionEnd\n";
  gpu::KernelInfo k;
  k.name = "scalar_sum";
  k.block = {64, 1, 1};
  k.buffer_dtypes = {kI32};
  k.scalar_dtypes.assign(size_t(nscalars), kI32);
  k.code = assemble(s.str());
  return k;
}

gpu::Expr c(int64_t v) { return gpu::Expr{{{gpu::ExprOp::kConst, v}}}; }
gpu::Expr slot(int32_t s) { return gpu::Expr{{{gpu::ExprOp::kSlot, s}}}; }
gpu::Expr ceil_div(int32_t s, int64_t d) {
  return gpu::Expr{{{gpu::ExprOp::kSlot, s},
                    {gpu::ExprOp::kConst, d - 1},
                    {gpu::ExprOp::kAdd, 0},
                    {gpu::ExprOp::kConst, d},
                    {gpu::ExprOp::kFloorDiv, 0}}};
}

gpu::FunctionTable offset_copy_function(const std::string& name) {
  gpu::FunctionTable f;
  f.name = name;
  f.num_slots = 1;
  gpu::ParamSpec x{gpu::ParamSpec::Kind::kBuffer, "x", kF32, {{0, 0}}, -1};
  gpu::ParamSpec y{gpu::ParamSpec::Kind::kBuffer, "y", kF32, {{0, 0}}, -1};
  f.params = {x, y};
  gpu::Step launch;
  launch.kind = gpu::Step::Kind::kLaunch;
  launch.kernel = 0;
  launch.grid = {ceil_div(0, 64), c(1), c(1)};
  launch.args = {{gpu::LaunchArg::Kind::kParam, 0, {}},
                 {gpu::LaunchArg::Kind::kParam, 1, {}},
                 {gpu::LaunchArg::Kind::kScalar, 0, slot(0)}};
  f.steps = {launch};
  return f;
}

runtime::Module load(const gpu::Library& lib) {
  std::vector<uint8_t> bytes = gpu::serialize(lib);
  return runtime::load_module("spirv", bytes);
}

DLTensor view(const DevBuffer& buf, std::vector<int64_t>& shape, DLDataType dtype,
              uint64_t byte_offset) {
  DLTensor t{};
  t.data = buf.ptr;
  t.device = kVk;
  t.ndim = int32_t(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  t.byte_offset = byte_offset;
  return t;
}

uint64_t max_storage_buffer_range() {
  std::string d = api().attribute(kVk, kRxDeviceDescription).as_string();
  const std::string key = "max storage buffer range ";
  size_t at = d.find(key);
  if (at == std::string::npos) return 0;
  return std::stoull(d.substr(at + key.size()));
}

}  // namespace relax::vktest
