// Loading "spirv" libraries and launching their kernels (see vk_module.h).
#include "vk_module.h"

#include <cstring>
#include <numeric>

#include "spirv_abi.h"

namespace relax::vulkan_rt {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

std::string kernel_ctx(const gpu::KernelInfo& k) { return "kernel '" + k.name + "'"; }

/// What launch argument `i` of `step` is, for messages: "argument 1 (parameter 'x')".
std::string arg_name(const gpu::FunctionTable& fn, const gpu::Step& step, size_t i) {
  std::string s = "argument " + std::to_string(i);
  if (i >= step.args.size()) return s;
  const gpu::LaunchArg& a = step.args[i];
  if (a.kind == gpu::LaunchArg::Kind::kParam && a.index >= 0 && size_t(a.index) < fn.params.size())
    return s + " (parameter '" + fn.params[size_t(a.index)].name + "')";
  if (a.kind == gpu::LaunchArg::Kind::kWorkspace)
    return s + " (workspace " + std::to_string(a.index) + ")";
  return s;
}

}  // namespace

SpirvModule::SpirvModule(gpu::Library lib) : lib_(std::move(lib)), device_(Device::get()) {
  if (lib_.format != "spirv")
    throw VkError("the kernel library has format '" + lib_.format + "', not 'spirv'");
  const PhysicalDevice& d = device_.chosen();
  device_.check_requirements(lib_.requirements);
  const VkPhysicalDeviceLimits& lim = d.props.limits;
  for (const gpu::KernelInfo& k : lib_.kernels) {
    if (k.code.empty() || k.code.size() % 4 != 0)
      throw VkError(kernel_ctx(k) + ": its SPIR-V code has " + std::to_string(k.code.size()) +
                    " bytes (expected a non-empty multiple of 4)");
    uint32_t magic;
    std::memcpy(&magic, k.code.data(), 4);
    if (magic != kSpirvMagic) throw VkError(kernel_ctx(k) + ": its code is not SPIR-V (bad magic)");
    uint64_t threads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
    for (int i = 0; i < 3; ++i)
      if (k.block[i] == 0 || k.block[i] > lim.maxComputeWorkGroupSize[i])
        throw VkError(kernel_ctx(k) + ": work-group size " + std::to_string(k.block[i]) +
                      " in dimension " + std::to_string(i) + " exceeds the limit " +
                      std::to_string(lim.maxComputeWorkGroupSize[i]) + " of " + d.props.deviceName);
    if (threads > lim.maxComputeWorkGroupInvocations)
      throw VkError(kernel_ctx(k) + ": " + std::to_string(threads) +
                    " threads per work-group exceed the limit " +
                    std::to_string(lim.maxComputeWorkGroupInvocations) + " of " +
                    d.props.deviceName);
    if (k.shared_bytes > lim.maxComputeSharedMemorySize)
      throw VkError(kernel_ctx(k) + ": " + std::to_string(k.shared_bytes) +
                    " bytes of shared memory exceed the limit " +
                    std::to_string(lim.maxComputeSharedMemorySize) + " of " + d.props.deviceName);
  }
  device_.ensure_ready();
  for (const gpu::FunctionTable& f : lib_.functions) functions_.push_back({this, &f});
  pipelines_.resize(lib_.kernels.size());
}

SpirvModule::~SpirvModule() {
  try {
    device_.synchronize();
  } catch (...) {
    // The device failed; destroying what it may still use is all that is left to do.
  }
  for (auto& p : pipelines_)
    if (p) destroy_pipeline(*p);
  device_.save_pipeline_cache();
}

SpirvModule::Function* SpirvModule::find(const std::string& name) {
  for (Function& f : functions_)
    if (f.table->name == name) return &f;
  return nullptr;
}

void SpirvModule::destroy_pipeline(Pipeline& p) {
  VkApi& api = vk();
  VkDevice dev = device_.vk_device();
  if (p.pipeline) api.vkDestroyPipeline(dev, p.pipeline, nullptr);
  if (p.layout) api.vkDestroyPipelineLayout(dev, p.layout, nullptr);
  if (p.set_layout) api.vkDestroyDescriptorSetLayout(dev, p.set_layout, nullptr);
  if (p.shader) api.vkDestroyShaderModule(dev, p.shader, nullptr);
}

void SpirvModule::create_pipeline(const gpu::KernelInfo& k, Pipeline& p) {
  VkApi& api = vk();
  VkDevice dev = device_.vk_device();
  std::string ctx = kernel_ctx(k);
  auto sm = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  sm.codeSize = k.code.size();
  sm.pCode = reinterpret_cast<const uint32_t*>(k.code.data());
  check(api.vkCreateShaderModule(dev, &sm, nullptr, &p.shader), "vkCreateShaderModule", ctx);

  vulkan::ParamBlockLayout params =
      vulkan::param_block_layout(k.scalar_dtypes, k.buffer_dtypes.size());
  p.uniform_params = params.uses_uniform_buffer();
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (uint32_t i = 0; i < k.buffer_dtypes.size() + (p.uniform_params ? 1 : 0); ++i) {
    VkDescriptorSetLayoutBinding b{};
    b.binding = i;
    b.descriptorType = i < k.buffer_dtypes.size() ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                  : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(b);
  }
  auto sl = vk_struct<VkDescriptorSetLayoutCreateInfo>(
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  p.push_descriptors = device_.pushes_descriptors(bindings.size());
  if (p.push_descriptors) sl.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  sl.bindingCount = uint32_t(bindings.size());
  sl.pBindings = bindings.data();
  check(api.vkCreateDescriptorSetLayout(dev, &sl, nullptr, &p.set_layout),
        "vkCreateDescriptorSetLayout", ctx);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, params.size};
  auto pl = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &p.set_layout;
  if (!p.uniform_params && params.size > 0) {
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
  }
  check(api.vkCreatePipelineLayout(dev, &pl, nullptr, &p.layout), "vkCreatePipelineLayout", ctx);

  auto cp = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  cp.stage = vk_struct<VkPipelineShaderStageCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = p.shader;
  cp.stage.pName = k.name.c_str();
  cp.layout = p.layout;
  check(api.vkCreateComputePipelines(dev, device_.pipeline_cache(), 1, &cp, nullptr, &p.pipeline),
        "vkCreateComputePipelines", ctx);
  // Under RELAX_VULKAN_VALIDATION=1: a pipeline the layer objects to is never dispatched.
  if (std::string v = device_.take_validation_error(); !v.empty())
    throw VkError(v + " (" + ctx + ")");
  device_.note_pipeline_created();
}

SpirvModule::Pipeline& SpirvModule::pipeline(int32_t kernel) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<Pipeline>& slot = pipelines_.at(size_t(kernel));
  if (!slot) {
    auto p = std::make_unique<Pipeline>();
    try {
      create_pipeline(lib_.kernels[size_t(kernel)], *p);
    } catch (...) {
      destroy_pipeline(*p);
      throw;
    }
    slot = std::move(p);
  }
  return *slot;
}

void SpirvModule::launch(const gpu::FunctionTable& fn, const gpu::Step& step,
                         const gpu::Launch& l) {
  if (l.kernel < 0 || size_t(l.kernel) >= lib_.kernels.size())
    throw VkError("function '" + fn.name + "': launch of kernel " + std::to_string(l.kernel) +
                  ", which the library does not have");
  const gpu::KernelInfo& k = lib_.kernels[size_t(l.kernel)];
  std::string ctx = "function '" + fn.name + "', " + kernel_ctx(k);
  if (l.buffers.size() != k.buffer_dtypes.size() || l.scalars.size() != k.scalar_dtypes.size())
    throw VkError(ctx + ": launched with " + std::to_string(l.buffers.size()) + " buffers and " +
                  std::to_string(l.scalars.size()) + " scalars, expected " +
                  std::to_string(k.buffer_dtypes.size()) + " and " +
                  std::to_string(k.scalar_dtypes.size()));
  const PhysicalDevice& d = device_.chosen();
  const VkPhysicalDeviceLimits& lim = d.props.limits;
  if (l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0) return;  // nothing to do
  vulkan::ParamBlockLayout layout =
      vulkan::param_block_layout(k.scalar_dtypes, k.buffer_dtypes.size());
  Dispatch dispatch;
  dispatch.kernel = &k.name;
  dispatch.params.assign(layout.size, 0);
  dispatch.grid = l.grid;
  for (size_t i = 0; i < l.scalars.size(); ++i) {
    uint8_t* at = dispatch.params.data() + layout.scalar_offsets[i];
    if (k.scalar_dtypes[i].bits > 32) {
      std::memcpy(at, &l.scalars[i], 8);
    } else {
      int32_t v = int32_t(l.scalars[i]);
      std::memcpy(at, &v, 4);
    }
  }
  const uint64_t max_range = lim.maxStorageBufferRange;
  for (size_t i = 0; i < l.buffers.size(); ++i) {
    const gpu::BufferArg& a = l.buffers[i];
    auto* b = static_cast<Buffer*>(a.data);
    if (b == nullptr || b->magic != Buffer::kMagic)
      throw VkError(ctx + ": " + arg_name(fn, step, i) + " is not a Vulkan buffer");
    uint64_t esize = gpu::dtype_bytes(a.dtype);
    if (esize == 0) esize = 1;
    uint64_t byte_offset = uint64_t(a.elem_offset) * esize;
    uint64_t needed = a.nbytes != 0 ? a.nbytes : b->size - std::min(b->size, byte_offset);
    if (byte_offset > b->size || needed > b->size - byte_offset)
      throw VkError(ctx + ": " + arg_name(fn, step, i) + ": " + std::to_string(needed) +
                    " bytes at byte offset " + std::to_string(byte_offset) +
                    " pass the end of its buffer of " + std::to_string(b->size) + " bytes");
    // Bind from the offset rounded down to an alignment that is also a whole element.
    uint64_t align = std::lcm<uint64_t>(lim.minStorageBufferOffsetAlignment, esize);
    uint64_t bind = byte_offset / align * align;
    uint64_t span = byte_offset - bind + needed;
    if (span > max_range)
      throw VkError(ctx + ": " + arg_name(fn, step, i) + " spans " + std::to_string(span) +
                    " bytes, more than the device's maxStorageBufferRange " +
                    std::to_string(max_range) + " (" + d.props.deviceName + ")");
    uint64_t vk_size = std::max<uint64_t>(b->size, 4);
    if (bind >= vk_size) bind = 0;  // an empty view at the end: nothing is accessed
    uint64_t range = std::min(vk_size - bind, max_range);
    dispatch.bindings.push_back({b->buffer, bind, range});
    dispatch.used.push_back(b);
    int64_t elem = int64_t((byte_offset - bind) / esize);
    if (bind == 0 && byte_offset >= vk_size) elem = 0;
    if (elem > INT32_MAX)
      throw VkError(ctx + ": " + arg_name(fn, step, i) + " has an element offset past int32");
    int32_t e32 = int32_t(elem);
    std::memcpy(dispatch.params.data() + layout.offset_offsets[i], &e32, 4);
  }
  for (int i = 0; i < 3; ++i)
    if (l.grid[i] > lim.maxComputeWorkGroupCount[i])
      throw VkError(ctx + ": " + std::to_string(l.grid[i]) + " work-groups in dimension " +
                    std::to_string(i) + " exceed the limit " +
                    std::to_string(lim.maxComputeWorkGroupCount[i]) + " of " + d.props.deviceName);
  Pipeline& p = pipeline(l.kernel);
  dispatch.pipeline = p.pipeline;
  dispatch.layout = p.layout;
  dispatch.set_layout = p.set_layout;
  dispatch.params_in_uniform_buffer = p.uniform_params;
  dispatch.push_descriptors = p.push_descriptors;
  device_.dispatch(dispatch);
}

void SpirvModule::call(const gpu::FunctionTable& fn, const RxAny* args, int32_t nargs) {
  std::vector<const gpu::Step*> launches;
  for (const gpu::Step& s : fn.steps)
    if (s.kind == gpu::Step::Kind::kLaunch) launches.push_back(&s);
  size_t next = 0;
  gpu::ExecCallbacks cb;
  cb.alloc_workspace = [this](uint64_t n) -> void* { return device_.alloc(n); };
  cb.free_workspace = [this](void* h) { device_.free(static_cast<Buffer*>(h), false); };
  cb.launch = [&](const gpu::Launch& l) {
    static const gpu::Step kNoStep;
    const gpu::Step& step = next < launches.size() ? *launches[next] : kNoStep;
    ++next;
    launch(fn, step, l);
  };
  gpu::execute(lib_, fn, args, nargs, kDLVulkan, cb);
}

}  // namespace relax::vulkan_rt
