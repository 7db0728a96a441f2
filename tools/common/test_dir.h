// ONNX backend-test directories: DIR/model.onnx and DIR/test_data_set_N/{input,output}_K.pb.
// `relax-driver run DIR [--check]` and relax-conformance run models on them.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "relax/runtime/executable.h"
#include "relax/runtime/value.h"

namespace relax::tools {

/// One test_data_set_N directory: its input_K.pb and output_K.pb files, by K.
struct TestDataSet {
  std::string dir;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

/// Whether `path` is a directory holding model.onnx.
bool is_onnx_test_dir(const std::string& path);
/// The test_data_set_N directories of `case_dir`, by N (none: an empty list).
std::vector<TestDataSet> find_test_data_sets(const std::string& case_dir);
/// The inputs of `set` as the arguments of `f`: a TensorProto whose name is a parameter's goes
/// there, the others fill the remaining parameters in order. Throws relax::Error naming the
/// file when the counts or names do not fit.
std::vector<runtime::Value> load_test_inputs(const TestDataSet& set, const runtime::FunctionInfo& f);
/// Compares the outputs in `result` (a tuple is flattened) with the set's output_K.pb: shapes
/// and dtypes must match, integers and bools exactly, floats within atol + rtol * |want| (NaN
/// equals NaN). Writes one verdict line per output to `os`; returns whether all match and, when
/// not, sets `first_error` (may be null) to the first mismatch's verdict.
bool check_outputs(const runtime::Value& result, const TestDataSet& set, double rtol, double atol,
                   std::ostream& os, std::string* first_error = nullptr);
/// The largest |got - want| over the outputs of `result` and the set's output_K.pb files;
/// NaN when they do not line up (count, shape or dtype) or one side of an element is NaN
/// (NaN against NaN counts as equal, as in check_outputs).
double max_abs_error(const runtime::Value& result, const TestDataSet& set);

}  // namespace relax::tools
