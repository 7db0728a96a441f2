// librelax-test-rfc-funcs.so: the packed functions the RFC example programs (examples/rfc)
// call, so that the e2e tests can run those programs through relax-driver (--plugin).
//
//   custom_print(t)                 prints "custom_print: shape sum=S" on stdout
//   custom_add(a, b) -> a + b       a new tensor
//   custom_inplace_update(t) -> t   adds 1 to every element, in place
//   custom_tile(x, out)             DPS: out (m, 2k) = x (m, k) repeated along axis 1
//   myshape_func(shape) -> shape    the identity on shapes
//   flatten(x, out), custom_func(x, out)   DPS: copy the elements in order
//   linear(x, w, b, out)            DPS: out = x @ w^T + b   (x (1, K), w (N, K), b (N))
//   relu(x, out)                    DPS: out = max(x, 0)
//   linear1(a, b, c, out)           DPS: out = a * b + c (c broadcast along the last axis)
//   read_tensor_from_file(path) -> tensor (1, N) of the whitespace-separated floats in `path`
// Every function checks its arguments' dtypes (float32) and sizes and throws relax::Error
// naming itself otherwise.
#include <fstream>
#include <iostream>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/runtime/registry.h"
#include "relax/sdk/plugin.h"

namespace {

using relax::runtime::Args;
using relax::runtime::NDArray;
using relax::runtime::Value;

NDArray f32(const char* fn, Args args, size_t i) {
  RX_CHECK(i < args.size()) << fn << ": missing argument " << i;
  NDArray a = args[i].as_tensor();
  RX_CHECK(a.dtype() == relax::DataType::Float(32))
      << fn << ": argument " << i << " must be float32, got " << a.dtype().to_string();
  return a;
}

float* data(const NDArray& a) { return static_cast<float*>(a.data()); }

void same_size(const char* fn, const NDArray& a, const NDArray& b) {
  RX_CHECK(a.numel() == b.numel()) << fn << ": " << a.numel() << " elements vs " << b.numel();
}

void reg(const char* name, relax::runtime::PackedFuncObj::Body body) {
  relax::runtime::Registry::register_func(name, std::move(body), true);
}

void register_rfc_funcs(relax::transform::PluginRegistrar&) {
  reg("custom_print", [](Args args) -> Value {
    NDArray t = f32("custom_print", args, 0);
    double sum = 0;
    for (int64_t i = 0; i < t.numel(); ++i) sum += data(t)[i];
    std::cout << "custom_print: " << relax::runtime::shape_to_string(t.shape()) << " sum=" << sum
              << std::endl;
    return Value();
  });
  reg("custom_add", [](Args args) -> Value {
    NDArray a = f32("custom_add", args, 0), b = f32("custom_add", args, 1);
    same_size("custom_add", a, b);
    NDArray out = NDArray::empty(a.shape(), a.dtype());
    for (int64_t i = 0; i < a.numel(); ++i) data(out)[i] = data(a)[i] + data(b)[i];
    return Value(out);
  });
  reg("custom_inplace_update", [](Args args) -> Value {
    NDArray t = f32("custom_inplace_update", args, 0);
    for (int64_t i = 0; i < t.numel(); ++i) data(t)[i] += 1.0f;
    return Value(t);
  });
  reg("custom_tile", [](Args args) -> Value {
    NDArray x = f32("custom_tile", args, 0), out = f32("custom_tile", args, 1);
    RX_CHECK(x.shape().size() == 2 && out.shape().size() == 2 && out.shape()[0] == x.shape()[0] &&
             out.shape()[1] == 2 * x.shape()[1])
        << "custom_tile: expected x (m, k) and out (m, 2k)";
    int64_t m = x.shape()[0], k = x.shape()[1];
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < 2 * k; ++j) data(out)[i * 2 * k + j] = data(x)[i * k + j % k];
    return Value();
  });
  reg("myshape_func", [](Args args) -> Value {
    relax::runtime::check_num_args("myshape_func", args, 1);
    return args[0];
  });
  for (const char* name : {"flatten", "custom_func"}) {
    reg(name, [name](Args args) -> Value {
      NDArray x = f32(name, args, 0), out = f32(name, args, 1);
      same_size(name, x, out);
      for (int64_t i = 0; i < x.numel(); ++i) data(out)[i] = data(x)[i];
      return Value();
    });
  }
  reg("linear", [](Args args) -> Value {
    NDArray x = f32("linear", args, 0), w = f32("linear", args, 1), b = f32("linear", args, 2),
            out = f32("linear", args, 3);
    int64_t n = w.shape().at(0), k = w.shape().at(1);
    RX_CHECK(x.numel() == k && b.numel() == n && out.numel() == n)
        << "linear: expected x (1, K), w (N, K), b (N), out (1, N)";
    for (int64_t j = 0; j < n; ++j) {
      float acc = data(b)[j];
      for (int64_t i = 0; i < k; ++i) acc += data(x)[i] * data(w)[j * k + i];
      data(out)[j] = acc;
    }
    return Value();
  });
  reg("relu", [](Args args) -> Value {
    NDArray x = f32("relu", args, 0), out = f32("relu", args, 1);
    same_size("relu", x, out);
    for (int64_t i = 0; i < x.numel(); ++i) data(out)[i] = data(x)[i] > 0 ? data(x)[i] : 0;
    return Value();
  });
  reg("linear1", [](Args args) -> Value {
    NDArray a = f32("linear1", args, 0), b = f32("linear1", args, 1), c = f32("linear1", args, 2),
            out = f32("linear1", args, 3);
    same_size("linear1", a, out);
    same_size("linear1", b, out);
    int64_t n = c.numel();
    for (int64_t i = 0; i < out.numel(); ++i)
      data(out)[i] = data(a)[i] * data(b)[i] + data(c)[i % n];
    return Value();
  });
  reg("read_tensor_from_file", [](Args args) -> Value {
    relax::runtime::check_num_args("read_tensor_from_file", args, 1);
    const std::string& path = args[0].as_string();
    std::ifstream in(path);
    RX_CHECK(in.good()) << "read_tensor_from_file: cannot open " << path;
    std::vector<float> values;
    for (float v; in >> v;) values.push_back(v);
    NDArray out = NDArray::empty({1, int64_t(values.size())}, relax::DataType::Float(32));
    for (size_t i = 0; i < values.size(); ++i) data(out)[i] = values[i];
    return Value(out);
  });
}

}  // namespace

RELAX_PLUGIN("test-rfc-funcs", "0.1.0", register_rfc_funcs)
