// relax-conformance's test cases (cases.h): finding them and classifying their models.
#include "cases.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "relax/support/diagnostic.h"

namespace relax::conformance {

namespace {

namespace fs = std::filesystem;

onnx::ModelProto read_model(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  RX_CHECK(in && model.ParseFromIstream(&in))
      << path.string() << ": cannot be read as an onnx.ModelProto";
  return model;
}

/// Why a value type puts the case outside the measured set, or "".
std::string unsupported_type(const onnx::TypeProto& t) {
  if (t.has_sequence_type()) return "sequence";
  if (t.has_optional_type()) return "optional";
  if (t.has_map_type()) return "map";
  if (t.has_sparse_tensor_type()) return "sparse tensor";
  return "";
}

/// The op under test: the single node's op, else the most specific summary we have (the
/// first op that is not a Constant).
std::string main_op(const onnx::GraphProto& g) {
  for (const onnx::NodeProto& n : g.node())
    if (n.op_type() != "Constant") return n.op_type();
  return g.node_size() ? g.node(0).op_type() : "(empty graph)";
}

/// The first element of a bool, float, double or integer TensorProto, or nullopt.
std::optional<double> first_element(const onnx::TensorProto& t) {
  using T = onnx::TensorProto;
  const std::string& raw = t.raw_data();
  auto from_raw = [&raw]<typename V>(V) -> std::optional<double> {
    if (raw.size() < sizeof(V)) return std::nullopt;
    V v;
    std::memcpy(&v, raw.data(), sizeof(V));
    return double(v);
  };
  switch (t.data_type()) {
    case T::BOOL: case T::UINT8: case T::INT8:
      if (!raw.empty()) return double(uint8_t(raw[0]));
      if (t.int32_data_size()) return double(t.int32_data(0));
      return std::nullopt;
    case T::FLOAT:
      if (!raw.empty()) return from_raw(float{});
      if (t.float_data_size()) return double(t.float_data(0));
      return std::nullopt;
    case T::DOUBLE:
      if (!raw.empty()) return from_raw(double{});
      if (t.double_data_size()) return t.double_data(0);
      return std::nullopt;
    case T::INT64:
      if (!raw.empty()) return from_raw(int64_t{});
      if (t.int64_data_size()) return double(t.int64_data(0));
      return std::nullopt;
    default: return std::nullopt;
  }
}

/// The first element of value `name` when the model or the case's first data set fixes it:
/// an initializer, a Constant node's value, or the graph input's input_K.pb.
std::optional<double> fixed_value(const std::string& dir, const onnx::GraphProto& g,
                                  const std::string& name) {
  for (const onnx::TensorProto& t : g.initializer())
    if (t.name() == name) return first_element(t);
  for (const onnx::NodeProto& n : g.node()) {
    if (n.op_type() != "Constant" || n.output_size() != 1 || n.output(0) != name) continue;
    for (const onnx::AttributeProto& a : n.attribute())
      if (a.name() == "value" && a.has_t()) return first_element(a.t());
  }
  for (int k = 0; k < g.input_size(); ++k) {
    if (g.input(k).name() != name) continue;
    std::ifstream in(fs::path(dir) / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb"),
                     std::ios::binary);
    onnx::TensorProto t;
    if (in && t.ParseFromIstream(&in)) return first_element(t);
  }
  return std::nullopt;
}

/// Why the case's expected outputs come from a random generator, or "": a random op, or a
/// Dropout in training mode with a non-zero ratio. ONNX's test data draws those values with
/// NumPy's generator (bernoulli.py says so: "may not produce the same values in different
/// implementations even if a seed is specified"), so no implementation can match them.
std::string random_reason(const std::string& dir, const onnx::GraphProto& g) {
  static const std::set<std::string> kRandom = {"Bernoulli",        "RandomUniform",
                                                "RandomUniformLike", "RandomNormal",
                                                "RandomNormalLike",  "Multinomial"};
  for (const onnx::NodeProto& n : g.node()) {
    if (kRandom.count(n.op_type())) return "random op " + n.op_type() + " (seeded NumPy data)";
    if (n.op_type() != "Dropout" || n.input_size() < 3 || n.input(2).empty()) continue;
    std::optional<double> training = fixed_value(dir, g, n.input(2));
    std::optional<double> ratio =
        n.input_size() > 1 && !n.input(1).empty() ? fixed_value(dir, g, n.input(1)) : 0.5;
    if (training && *training != 0 && (!ratio || *ratio != 0))
      return "Dropout in training mode (random mask, seeded NumPy data)";
  }
  return "";
}

void classify(Case& c, const onnx::ModelProto& model) {
  static const std::set<std::string> kTraining = {"Adagrad", "Adam", "Momentum", "Gradient"};
  const onnx::GraphProto& g = model.graph();
  c.op_type = main_op(g);
  for (const onnx::NodeProto& n : g.node()) {
    if (kTraining.count(n.op_type()) || n.domain() == "ai.onnx.preview.training") {
      c.excluded = "training-only op " + n.op_type();
      return;
    }
  }
  c.excluded = random_reason(c.dir, g);
  if (!c.excluded.empty()) return;
  auto check = [&](const onnx::ValueInfoProto& v, const char* role) {
    std::string why = unsupported_type(v.type());
    if (!why.empty() && c.excluded.empty())
      c.excluded = why + "-typed " + role + " '" + v.name() + "'";
  };
  for (const onnx::ValueInfoProto& v : g.input()) check(v, "input");
  for (const onnx::ValueInfoProto& v : g.output()) check(v, "output");
}

}  // namespace

std::vector<Case> discover_cases(const std::string& root, const std::string& filter) {
  RX_CHECK(fs::is_directory(root)) << "relax-conformance: " << root << " is not a directory";
  std::vector<fs::path> dirs;
  if (fs::is_regular_file(fs::path(root) / "model.onnx")) dirs.push_back(root);
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it.depth() >= 1) it.disable_recursion_pending();
    if (it->is_directory() && fs::is_regular_file(it->path() / "model.onnx"))
      dirs.push_back(it->path());
  }
  std::vector<Case> cases;
  for (const fs::path& d : dirs) {
    std::string name = fs::relative(d, root).string();
    if (name == ".") name = d.filename().string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    Case c{name, d.string(), "", ""};
    classify(c, read_model(d / "model.onnx"));
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  // An "_expanded" case is its base case's op as a function body: group it with that op.
  std::map<std::string, std::string> op_of;
  for (const Case& c : cases) op_of[c.name] = c.op_type;
  const std::string suffix = "_expanded";
  for (Case& c : cases) {
    if (c.name.size() > suffix.size() &&
        c.name.compare(c.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      auto it = op_of.find(c.name.substr(0, c.name.size() - suffix.size()));
      if (it != op_of.end()) c.op_type = it->second;
    }
  }
  return cases;
}

}  // namespace relax::conformance
