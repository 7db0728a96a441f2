// A minimal Vulkan compute runner for the codegen tests (not the Vulkan runtime plugin): runs
// SPIR-V kernels on the first Vulkan device (lavapipe when VK_DRIVER_FILES is unset: it is
// pinned here) with host-visible buffers, so that the emitted code's *results* are compared
// with the reference interpreter. libvulkan.so.1 is opened with dlopen; without it, or without
// a device, available() is false and why() says so (the tests then skip).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace relax::vulkan::test {

/// One dispatch: a kernel's SPIR-V, its grid, the runner buffers it binds (in binding order)
/// and its parameter block bytes (push constants, or a uniform buffer when `uniform`).
struct Dispatch {
  std::vector<uint32_t> code;
  std::string entry;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<int> buffers;
  std::vector<uint8_t> params;
  bool uniform = false;
};

class VulkanRunner {
 public:
  /// The process-wide runner (created on first use).
  static VulkanRunner& get();
  bool available() const { return ok_; }
  const std::string& why() const { return why_; }
  /// Copies `host` buffers (pointer, bytes) in, runs the dispatches in order (a barrier
  /// between each), copies every buffer back. Throws std::runtime_error naming the failing
  /// Vulkan call.
  void run(const std::vector<std::pair<void*, size_t>>& host, const std::vector<Dispatch>& ds);

  struct Impl;

 private:
  VulkanRunner();
  bool ok_ = false;
  std::string why_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace relax::vulkan::test
