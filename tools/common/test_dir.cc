// ONNX backend-test directories (test_dir.h).
#include "test_dir.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "compare.h"
#include "relax/runtime/tensor_io.h"
#include "relax/support/diagnostic.h"

namespace relax::tools {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

namespace {

/// "input_3.pb" -> 3, or -1 for other names.
int64_t data_file_index(const std::string& file, const std::string& prefix) {
  if (file.rfind(prefix, 0) != 0 || file.size() <= prefix.size() + 3) return -1;
  if (file.compare(file.size() - 3, 3, ".pb") != 0) return -1;
  std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 3);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

/// ONNX's test data stores bfloat16 tensors as UINT16 (numpy has no bfloat16, and onnx's
/// numpy_helper keeps the bits in uint16): `a` with its bits reinterpreted as bfloat16 when it
/// is uint16 and `bfloat16` is what the model declares, else `a` unchanged.
NDArray bfloat16_bits(const NDArray& a, bool bfloat16) {
  if (!bfloat16 || a.dtype() != DataType::UInt(16)) return a;
  return a.view(a.shape(), DataType::BFloat(16));
}

}  // namespace

bool is_onnx_test_dir(const std::string& path) {
  return std::filesystem::is_directory(path) &&
         std::filesystem::is_regular_file(std::filesystem::path(path) / "model.onnx");
}

std::vector<TestDataSet> find_test_data_sets(const std::string& case_dir) {
  namespace fs = std::filesystem;
  std::map<int64_t, TestDataSet> sets;
  for (const fs::directory_entry& e : fs::directory_iterator(case_dir)) {
    std::string name = e.path().filename().string();
    const std::string prefix = "test_data_set_";
    if (!e.is_directory() || name.rfind(prefix, 0) != 0) continue;
    std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    std::map<int64_t, std::string> inputs, outputs;
    for (const fs::directory_entry& f : fs::directory_iterator(e.path())) {
      std::string file = f.path().filename().string();
      if (int64_t k = data_file_index(file, "input_"); k >= 0) inputs[k] = f.path().string();
      if (int64_t k = data_file_index(file, "output_"); k >= 0) outputs[k] = f.path().string();
    }
    TestDataSet set{e.path().string(), {}, {}};
    for (auto& [k, path] : inputs) {
      RX_CHECK(k == int64_t(set.inputs.size()))
          << set.dir << ": input_" << set.inputs.size() << ".pb is missing (found input_" << k
          << ".pb)";
      set.inputs.push_back(path);
    }
    for (auto& [k, path] : outputs) {
      RX_CHECK(k == int64_t(set.outputs.size()))
          << set.dir << ": output_" << set.outputs.size() << ".pb is missing (found output_" << k
          << ".pb)";
      set.outputs.push_back(path);
    }
    sets[std::stoll(digits)] = std::move(set);
  }
  std::vector<TestDataSet> out;
  for (auto& [n, set] : sets) out.push_back(std::move(set));
  return out;
}

std::vector<Value> load_test_inputs(const TestDataSet& set, const runtime::FunctionInfo& f) {
  RX_CHECK(set.inputs.size() == size_t(f.num_params))
      << set.dir << ": " << set.inputs.size() << " input_K.pb files for the "
      << f.num_params << " parameters of function " << f.name;
  std::vector<std::optional<Value>> args(size_t(f.num_params));
  std::vector<NDArray> unnamed;
  for (const std::string& file : set.inputs) {
    std::string name;
    NDArray a = runtime::load_tensor_proto(file, &name);
    auto it = std::find(f.param_names.begin(), f.param_names.end(), name);
    size_t p = size_t(it - f.param_names.begin());
    if (!name.empty() && it != f.param_names.end() && !args[p]) {
      args[p] = Value(a);
    } else {
      unnamed.push_back(a);
    }
  }
  std::vector<Value> out;
  size_t next = 0;
  for (size_t p = 0; p < args.size(); ++p) {
    NDArray a = args[p] ? args[p]->as_tensor() : unnamed[next++];
    // The parameter's struct info text, e.g. "Tensor((3, 4), bfloat16)".
    bool bf16 = p < f.param_types.size() && f.param_types[p].find("bfloat16") != std::string::npos;
    out.push_back(Value(bfloat16_bits(a, bf16)));
  }
  return out;
}

bool check_outputs(const Value& result, const TestDataSet& set, double rtol, double atol,
                   std::ostream& os, std::string* first_error) {
  std::vector<Value> outputs = flatten_outputs(result);
  std::string set_name = std::filesystem::path(set.dir).filename().string();
  bool all_ok = true;
  auto fail = [&](const std::string& line) {
    os << line << "\n";
    if (all_ok && first_error) *first_error = line;
    all_ok = false;
  };
  if (outputs.size() != set.outputs.size()) {
    fail(set_name + ": MISMATCH: the model returned " + std::to_string(outputs.size()) +
         " outputs, the data set has " + std::to_string(set.outputs.size()) + " (output_K.pb)");
    return false;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name;
    NDArray want = runtime::load_tensor_proto(set.outputs[i], &name);
    std::ostringstream line;
    line << set_name << " output " << i << (name.empty() ? "" : " '" + name + "'") << ": ";
    if (!outputs[i].is(ValueKind::kTensor)) {
      fail(line.str() + "MISMATCH: got " + outputs[i].describe() + ", expected a tensor");
      continue;
    }
    const NDArray& got = outputs[i].as_tensor();
    want = bfloat16_bits(want, got.dtype() == DataType::BFloat(16));
    if (compare_tensor(got, want, rtol, atol, line)) {
      os << line.str() << "\n";
    } else {
      fail(line.str());
    }
  }
  return all_ok;
}

double max_abs_error(const Value& result, const TestDataSet& set) {
  std::vector<Value> outputs = flatten_outputs(result);
  if (outputs.size() != set.outputs.size()) return std::nan("");
  double max_abs = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    NDArray want = runtime::load_tensor_proto(set.outputs[i]);
    if (!outputs[i].is(ValueKind::kTensor)) return std::nan("");
    const NDArray& got = outputs[i].as_tensor();
    want = bfloat16_bits(want, got.dtype() == DataType::BFloat(16));
    if (got.dtype() != want.dtype() || got.shape() != want.shape()) return std::nan("");
    bool is_float = want.dtype().is_float();
    for (int64_t k = 0; k < want.numel(); ++k) {
      double g = is_float ? float_element(got, k) : double(int_element(got, k));
      double w = is_float ? float_element(want, k) : double(int_element(want, k));
      if (g == w || (std::isnan(g) && std::isnan(w))) continue;  // as --check: NaN equals NaN
      double err = std::abs(g - w);
      if (std::isnan(err)) return err;
      max_abs = std::max(max_abs, err);
    }
  }
  return max_abs;
}

}  // namespace relax::tools
