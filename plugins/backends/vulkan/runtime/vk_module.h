// A loaded "spirv" kernel library (gpu_common/launch_table.h + spirv_abi.h): its functions run
// through gpu::execute, whose launches become dispatches on the Device.
//
// Loading checks the library's requirements against the device (refusing it, naming what is
// lacking) and each kernel's code and work-group size against the device's limits. Pipelines
// (shader module, descriptor-set layout, pipeline layout, compute pipeline through the device's
// pipeline cache) are created at a kernel's first launch, under the module's mutex. A buffer
// argument is bound from its element offset rounded down to the device's storage-buffer offset
// alignment (the remainder goes into the parameter block), with a range of at most
// maxStorageBufferRange: a tensor that does not fit in that range is an error naming the
// kernel, the argument and the limit.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu_common/launch_table.h"
#include "vk_device.h"

namespace relax::vulkan_rt {

class SpirvModule {
 public:
  /// A function of the module, the `self` of its RxPackedCFunc.
  struct Function {
    SpirvModule* module;
    const gpu::FunctionTable* table;
  };

  /// Takes the library; throws VkError / std::runtime_error when the device cannot run it.
  explicit SpirvModule(gpu::Library lib);
  /// Waits for the device, destroys the pipelines and saves the pipeline cache.
  ~SpirvModule();
  SpirvModule(const SpirvModule&) = delete;
  SpirvModule& operator=(const SpirvModule&) = delete;

  /// The function named `name`, or null.
  Function* find(const std::string& name);
  /// Runs `fn` on the VM's arguments (gpu::execute; launches queued on the device).
  void call(const gpu::FunctionTable& fn, const RxAny* args, int32_t nargs);

 private:
  struct Pipeline {
    VkShaderModule shader = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    bool uniform_params = false;
    bool push_descriptors = false;
  };
  Pipeline& pipeline(int32_t kernel);
  void create_pipeline(const gpu::KernelInfo& k, Pipeline& p);
  void destroy_pipeline(Pipeline& p);
  /// Records one launch; `step` is the kLaunch step of `fn` it comes from (argument names).
  void launch(const gpu::FunctionTable& fn, const gpu::Step& step, const gpu::Launch& l);

  gpu::Library lib_;
  Device& device_;
  std::vector<Function> functions_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Pipeline>> pipelines_;
};

}  // namespace relax::vulkan_rt
