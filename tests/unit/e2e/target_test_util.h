// Helpers for the minimum-build tests: tensors, packed test functions, build-and-run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../common/error_of.h"
#include "relax/text/parser.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"

namespace relax::target::testing {

inline runtime::NDArray f32(std::vector<int64_t> shape, std::vector<float> values) {
  runtime::NDArray t = runtime::NDArray::empty(shape, DataType::Float(32));
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

inline std::vector<float> values_of(const runtime::NDArray& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

/// Element i is start + i * step.
inline std::vector<float> iota(int64_t n, float start = 0, float step = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + float(i) * step;
  return v;
}

/// Builds the module in `text` for `target` and a VM for it.
inline std::shared_ptr<runtime::VirtualMachine> build_vm(const std::string& target,
                                                         const std::string& text) {
  BuildOptions options;
  options.target = target;
  options.pipeline = "o0";
  Ref<runtime::Executable> exec = build(parse_module(text), options);
  return runtime::VirtualMachine::create(exec);
}

using relax::test::error_of;

}  // namespace relax::target::testing
