// Showing and saving a run's outputs (outputs.h).
#include "outputs.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <ostream>

#include "compare.h"
#include "relax/runtime/tensor_io.h"
#include "relax/support/diagnostic.h"

namespace relax::tools {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

namespace {

/// Element i as a number to show: float16/bfloat16 widened (element() has no value for them).
double shown_element(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  bool widened = t == DataType::Float(16) || t == DataType::BFloat(16) ||
                 t == DataType::Float(32) || t == DataType::Float(64);
  return widened ? float_element(a, i) : element(a, i);
}

}  // namespace

void print_value(std::ostream& os, const std::string& label, const Value& v, int limit) {
  os << label << ": ";
  if (!v.is(ValueKind::kTensor)) {
    os << v.describe() << "\n";
    return;
  }
  NDArray a = v.as_tensor();
  os << "tensor " << runtime::shape_to_string(a.shape()) << " " << a.dtype().to_string() << " [";
  int64_t n = a.numel();
  for (int64_t i = 0; i < std::min<int64_t>(n, limit); ++i)
    os << (i ? ", " : "") << std::setprecision(6) << shown_element(a, i);
  if (n > limit) os << ", ...";
  os << "]";
  if (a.dtype().is_float() && n > 0) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += shown_element(a, i);
    os << "  sum=" << std::setprecision(8) << sum;
  }
  os << "\n";
}

void report_outputs(const Value& result, const std::string& prefix, const std::string& dir,
                    int print_limit, std::ostream& os) {
  std::vector<Value> outputs = flatten_outputs(result);
  for (size_t i = 0; i < outputs.size() && print_limit >= 0; ++i)
    print_value(os, prefix + "output " + std::to_string(i), outputs[i], print_limit);
  if (dir.empty()) return;
  std::error_code ec;
  RX_CHECK(!std::filesystem::exists(dir, ec) || std::filesystem::is_directory(dir, ec))
      << "--output-dir " << dir << ": exists and is not a directory";
  std::filesystem::create_directories(dir, ec);
  RX_CHECK(!ec) << "--output-dir " << dir << ": cannot create it: " << ec.message();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is(ValueKind::kTensor)) continue;
    std::string path =
        (std::filesystem::path(dir) / ("output_" + std::to_string(i) + ".npy")).string();
    runtime::save_npy(path, outputs[i].as_tensor());
  }
}

}  // namespace relax::tools
