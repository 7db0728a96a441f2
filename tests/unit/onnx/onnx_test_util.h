// Helpers for the ONNX frontend tests: models built with the onnx protobuf API, saved to a
// temporary file, imported through the plugin (librelax-onnx.so from the plugin directory),
// and run on the tir-interp target.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "../../common/error_of.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/plugin.h"

namespace relax::onnx_test {

using runtime::NDArray;
using Dim = std::variant<int64_t, std::string>;

inline const transform::Frontend& frontend() {
  static transform::PassRegistry registry;
  static transform::PluginManager plugins(registry);
  static const transform::Frontend* fe = [] {
    plugins.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-onnx.so");
    return transform::find_frontend("x.onnx");
  }();
  return *fe;
}

/// A model under construction.
struct Model {
  onnx::ModelProto proto;

  explicit Model(int opset = 13) {
    proto.set_ir_version(8);
    auto* o = proto.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto& graph() { return *proto.mutable_graph(); }

  static void set_type(onnx::ValueInfoProto* vi, int elem, const std::vector<Dim>& dims) {
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (const Dim& d : dims) {
      auto* dim = shape->add_dim();
      if (auto* v = std::get_if<int64_t>(&d)) dim->set_dim_value(*v);
      else dim->set_dim_param(std::get<std::string>(d));
    }
  }
  Model& input(const std::string& name, const std::vector<Dim>& dims,
               int elem = onnx::TensorProto::FLOAT) {
    auto* vi = graph().add_input();
    vi->set_name(name);
    set_type(vi, elem, dims);
    return *this;
  }
  Model& output(const std::string& name, int rank, int elem = onnx::TensorProto::FLOAT) {
    auto* vi = graph().add_output();
    vi->set_name(name);
    std::vector<Dim> dims;
    for (int i = 0; i < rank; ++i) dims.push_back("d" + std::to_string(i));
    set_type(vi, elem, dims);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  static onnx::TensorProto tensor_f32(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<float>& values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t.add_dims(d);
    for (float v : values) t.add_float_data(v);
    return t;
  }
  static onnx::TensorProto tensor_i64(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t.add_dims(d);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8));
    return t;
  }
  Model& init_f32(const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<float>& values) {
    *graph().add_initializer() = tensor_f32(name, dims, values);
    return *this;
  }
  Model& init_i64(const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& values) {
    *graph().add_initializer() = tensor_i64(name, dims, values);
    return *this;
  }

  /// Writes the model to a fresh file and returns its path.
  std::string save(const std::string& stem) const {
    auto dir = std::filesystem::temp_directory_path() / "relax_onnx_tests";
    std::filesystem::create_directories(dir);
    std::string path = (dir / (stem + ".onnx")).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    proto.SerializeToOstream(&out);
    return path;
  }
  IRModule import(const std::string& stem, const transform::FrontendOptions& options = {}) const {
    return frontend().import(save(stem), options);
  }
};

// ---- Attributes.

inline void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void set_tensor(onnx::NodeProto& n, const std::string& name, const onnx::TensorProto& t) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

// ---- Tensors and running.

inline NDArray f32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  NDArray t = NDArray::empty(shape, DataType::Float(32));
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}
inline std::vector<float> values_of(const NDArray& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}
/// Element i is start + i * step.
inline std::vector<float> iota(int64_t n, float start = 0, float step = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + float(i) * step;
  return v;
}

/// Builds `mod` for the interpreter target and runs main on `inputs`.
inline NDArray run(const IRModule& mod, const std::vector<NDArray>& inputs) {
  auto vm = runtime::VirtualMachine::create(build(mod, relax::BuildOptions{"tir-interp", "o0"}));
  std::vector<runtime::Value> args(inputs.begin(), inputs.end());
  return vm->invoke("main", args).as_tensor();
}

using test::error_of;
using test::tensor_close_to;

/// Runs main and returns every output (a tuple's fields, or the one result).
inline std::vector<NDArray> run_all(const IRModule& mod, const std::vector<NDArray>& inputs) {
  auto vm = runtime::VirtualMachine::create(build(mod, relax::BuildOptions{"tir-interp", "o0"}));
  std::vector<runtime::Value> args(inputs.begin(), inputs.end());
  runtime::Value r = vm->invoke("main", args);
  if (!r.is(runtime::ValueKind::kTuple)) return {r.as_tensor()};
  std::vector<NDArray> out;
  runtime::Tuple t = r.as_tuple();
  for (const runtime::Value& v : t.fields()) out.push_back(v.as_tensor());
  return out;
}

}  // namespace relax::onnx_test
