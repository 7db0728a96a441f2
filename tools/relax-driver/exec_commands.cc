// relax-driver compile / run / inspect (exec_commands.h).
#include "exec_commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "relax/ir/expr_functor.h"
#include "relax/runtime/executable.h"
#include "relax/runtime/tensor_io.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/vm/passes.h"
#include "relax/target/target.h"
#include "relax/ir/prim_func.h"
#include "relax/transform/instruments.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"
#include "text_commands.h"

namespace relax::driver {

namespace {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

constexpr const char* kDefaultTarget = "llvm";

/// The pipeline's passes, then the passes of the minimum build it does not contain.
std::vector<transform::Pass> complete_pipeline(const transform::Pipeline& pipeline,
                                               transform::PassRegistry& registry) {
  std::vector<transform::Pass> passes = pipeline.build(registry);
  std::vector<std::string> names;
  for (const auto& spec : pipeline.passes) names.push_back(spec.name);
  std::string missing;
  for (const std::string& p : vm::minimum_build_passes()) {
    if (std::find(names.begin(), names.end(), p) == names.end())
      missing += (missing.empty() ? "" : ",") + p;
  }
  if (!missing.empty()) {
    for (transform::Pass& p : transform::parse_pipeline_line(missing, registry).build(registry))
      passes.push_back(std::move(p));
  }
  return passes;
}

Ref<runtime::Executable> compile_module(const std::string& path, const std::string& target_text,
                                        const transform::Pipeline& pipeline,
                                        transform::PassRegistry& registry,
                                        transform::PluginManager& plugins, bool time_passes,
                                        bool verify_each, bool stats = false,
                                        const transform::FrontendOptions& frontend_options = {},
                                        const std::vector<std::string>& upper_bounds = {}) {
  Target target = Target::parse(target_text);
  std::vector<transform::Pass> passes = complete_pipeline(pipeline, registry);
  transform::PassContext ctx;
  std::shared_ptr<transform::TimingInstrument> timing;
  if (time_passes || pipeline.instruments.time_passes) {
    timing = std::make_shared<transform::TimingInstrument>();
    ctx.add_instrument(timing);
  }
  if (verify_each || pipeline.instruments.verify_each.value_or(false))
    ctx.add_instrument(std::make_shared<transform::VerifyInstrument>());
  IRModule mod = read_module(path, &plugins, frontend_options);
  set_upper_bounds(mod, upper_bounds);
  auto start = std::chrono::steady_clock::now();
  IRModule lowered = transform::run_passes(passes, std::move(mod), ctx);
  if (stats) print_stats(lowered, std::cerr);
  Ref<runtime::Executable> exec = build_executable(lowered, target, &plugins);
  if (timing) {
    timing->report(std::cerr);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    std::cerr << "total compile time: " << std::fixed << std::setprecision(1) << ms << " ms\n";
  }
  return exec;
}

std::string pick_target(const std::string& given, const transform::Pipeline& pipeline,
                        const char* fallback) {
  if (!given.empty()) return given;
  if (!pipeline.target.empty()) return pipeline.target;
  return fallback;
}

// ---- inputs ------------------------------------------------------------------------------

/// A tensor parameter's type as the executable records it (to_string of its struct info):
/// `Tensor((n, 4), float32)`; the TVMScript spelling `R.Tensor((n, 4), "float32")` is read too.
struct TensorType {
  std::vector<std::string> dims;  ///< integers or symbolic names
  std::string dtype;
};

std::optional<TensorType> parse_tensor_type(std::string text) {
  if (text.rfind("R.", 0) == 0) text.erase(0, 2);
  const std::string head = "Tensor((";
  if (text.rfind(head, 0) != 0) return std::nullopt;
  size_t close = text.find(')', head.size());
  if (close == std::string::npos) return std::nullopt;
  auto trim = [](std::string v) {
    v.erase(0, v.find_first_not_of(" \""));
    v.erase(v.find_last_not_of(" \"") + 1);
    return v;
  };
  TensorType t;
  std::stringstream dims(text.substr(head.size(), close - head.size()));
  for (std::string d; std::getline(dims, d, ',');)
    if (!trim(d).empty()) t.dims.push_back(trim(d));
  size_t comma = text.find(',', close);
  size_t end = text.find_first_of(",)", comma + 1);
  if (comma == std::string::npos || end == std::string::npos) return std::nullopt;
  t.dtype = trim(text.substr(comma + 1, end - comma - 1));
  if (t.dtype.rfind("dtype=", 0) == 0) t.dtype = trim(t.dtype.substr(6));
  return t;
}

/// Random data for a parameter: uniform [-1, 1) for floats, [0, 10) for integers, 0/1 bools.
NDArray random_tensor(const std::vector<int64_t>& shape, DataType dtype, std::mt19937& gen) {
  NDArray a = NDArray::empty(shape, dtype);
  int64_t n = a.numel();
  auto* p = static_cast<uint8_t*>(a.data());
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DataType::Float(32)) {
      reinterpret_cast<float*>(p)[i] = float(real(gen));
    } else if (dtype == DataType::Float(64)) {
      reinterpret_cast<double*>(p)[i] = real(gen);
    } else if (dtype.is_bool()) {
      p[i] = uint8_t(gen() & 1);
    } else if (dtype.is_integer_like()) {
      int64_t v = int64_t(gen() % 10);
      std::memcpy(p + i * dtype.bytes(), &v, size_t(dtype.bytes()));
    } else {
      RX_THROW() << "cannot make random data of dtype " << dtype.to_string()
                 << "; give the input with --input";
    }
  }
  return a;
}

std::vector<Value> make_inputs(const RunOptions& opt, const runtime::FunctionInfo& f) {
  std::map<std::string, std::string> named;
  std::vector<std::string> positional;
  for (const std::string& spec : opt.inputs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      positional.push_back(spec);
    } else {
      named[spec.substr(0, eq)] = spec.substr(eq + 1);
    }
  }
  RX_CHECK(positional.size() <= size_t(f.num_params))
      << "function " << f.name << " takes " << f.num_params << " parameters, got "
      << positional.size() << " positional --input files";
  for (const auto& [name, file] : named) {
    RX_CHECK(std::find(f.param_names.begin(), f.param_names.end(), name) != f.param_names.end())
        << "--input " << name << "=" << file << ": function " << f.name
        << " has no parameter named " << name;
  }
  std::map<std::string, int64_t> dims;
  for (const std::string& spec : opt.dims) {
    size_t eq = spec.find('=');
    RX_CHECK(eq != std::string::npos) << "--dim " << spec << ": expected NAME=VALUE";
    dims[spec.substr(0, eq)] = std::stoll(spec.substr(eq + 1));
  }
  std::mt19937 gen(opt.seed);
  std::vector<Value> args;
  for (int64_t i = 0; i < f.num_params; ++i) {
    const std::string& name = f.param_names[size_t(i)];
    std::string file = size_t(i) < positional.size() ? positional[size_t(i)] : "";
    if (auto it = named.find(name); it != named.end()) file = it->second;
    if (!file.empty()) {
      args.emplace_back(runtime::load_tensor(file));
      continue;
    }
    std::string type = size_t(i) < f.param_types.size() ? f.param_types[size_t(i)] : "";
    std::optional<TensorType> t = parse_tensor_type(type);
    RX_CHECK(t) << "parameter " << name << " of " << f.name << " ("
                << (type.empty() ? "type unknown" : type)
                << "): random inputs are made only for tensors of known rank; give --input "
                << name << "=FILE.npy";
    std::optional<DataType> dtype = DataType::parse(t->dtype);
    RX_CHECK(dtype) << "parameter " << name << ": unknown dtype " << t->dtype;
    std::vector<int64_t> shape;
    for (const std::string& d : t->dims) {
      char* end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (end != d.c_str() && *end == 0) {
        shape.push_back(v);
      } else {
        auto it = dims.find(d);
        shape.push_back(it == dims.end() ? 1 : it->second);  // symbolic: --dim, else 1
      }
    }
    args.emplace_back(random_tensor(shape, *dtype, gen));
  }
  return args;
}

// ---- outputs -----------------------------------------------------------------------------

double element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data());
  DataType t = a.dtype();
  if (t == DataType::Float(32)) return reinterpret_cast<const float*>(p)[i];
  if (t == DataType::Float(64)) return reinterpret_cast<const double*>(p)[i];
  if (t.is_bool() || t == DataType::UInt(8)) return p[i];
  if (t == DataType::Int(8)) return reinterpret_cast<const int8_t*>(p)[i];
  if (t == DataType::Int(16)) return reinterpret_cast<const int16_t*>(p)[i];
  if (t == DataType::Int(32)) return reinterpret_cast<const int32_t*>(p)[i];
  if (t == DataType::Int(64)) return double(reinterpret_cast<const int64_t*>(p)[i]);
  return std::nan("");
}

/// Element i of a float tensor as a double (float16/bfloat16 widened exactly).
double float_element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data());
  DataType t = a.dtype();
  if (t == DataType::Float(32)) return reinterpret_cast<const float*>(p)[i];
  if (t == DataType::Float(64)) return reinterpret_cast<const double*>(p)[i];
  uint16_t h = reinterpret_cast<const uint16_t*>(p)[i];
  if (t == DataType::BFloat(16)) {
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  RX_CHECK(t == DataType::Float(16)) << "cannot compare tensors of dtype " << t.to_string();
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(double(mant), -24);
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(double(mant | 0x400), exp - 25);
}

/// Element i of an integer or bool tensor, exactly.
long double int_element(const NDArray& a, int64_t i) {
  const auto* p = static_cast<const uint8_t*>(a.data()) + i * a.dtype().bytes();
  DataType t = a.dtype();
  if (t.is_bool()) return *p != 0;
  int64_t s = 0;
  uint64_t u = 0;
  std::memcpy(&u, p, size_t(t.bytes()));
  if (t.is_uint()) return (long double)u;
  std::memcpy(&s, p, size_t(t.bytes()));
  int shift = 64 - t.bits;
  return (long double)(shift ? (int64_t(uint64_t(s) << shift) >> shift) : s);
}

std::string index_to_string(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

/// Writes the verdict for one output to `verdict` ("ok (...)" or "MISMATCH: ..."); sets `ok`.
void compare_tensor(const NDArray& got, const NDArray& want, double rtol, double atol,
                    std::ostream& verdict, bool& ok) {
  ok = false;
  if (got.dtype() != want.dtype()) {
    verdict << "MISMATCH: dtype " << got.dtype().to_string() << ", expected "
            << want.dtype().to_string();
    return;
  }
  if (got.shape() != want.shape()) {
    verdict << "MISMATCH: shape " << runtime::shape_to_string(got.shape()) << ", expected "
            << runtime::shape_to_string(want.shape());
    return;
  }
  bool is_float = want.dtype().is_float();
  int64_t n = want.numel(), bad = 0, first = -1;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g, w;
    bool equal;
    if (is_float) {
      g = float_element(got, i);
      w = float_element(want, i);
      if (std::isnan(g) || std::isnan(w)) {
        equal = std::isnan(g) && std::isnan(w);
      } else if (std::isinf(g) || std::isinf(w)) {
        equal = g == w;
      } else {
        equal = std::abs(g - w) <= atol + rtol * std::abs(w);
      }
    } else {
      long double gi = int_element(got, i), wi = int_element(want, i);
      equal = gi == wi;
      g = double(gi);
      w = double(wi);
    }
    double err = std::abs(g - w);
    if (std::isfinite(err)) {
      max_abs = std::max(max_abs, err);
      if (w != 0) max_rel = std::max(max_rel, err / std::abs(w));
    }
    if (!equal && bad++ == 0) first = i;
  }
  std::ostringstream stats;
  stats << std::setprecision(3) << "max abs err " << max_abs << ", max rel err " << max_rel;
  if (bad == 0) {
    ok = true;
    verdict << "ok (" << runtime::shape_to_string(want.shape()) << " "
            << want.dtype().to_string() << "; " << stats.str() << ")";
    return;
  }
  double g = is_float ? float_element(got, first) : double(int_element(got, first));
  double w = is_float ? float_element(want, first) : double(int_element(want, first));
  verdict << "MISMATCH: " << bad << " of " << n << " elements differ";
  if (is_float) verdict << " beyond rtol=" << rtol << " atol=" << atol;
  verdict << "; " << stats.str() << "; first at index "
          << index_to_string(want.shape(), first) << ": got " << std::setprecision(8) << g
          << ", expected " << w;
}

/// "input_3.pb" -> 3, or -1 for other names.
int64_t data_file_index(const std::string& file, const std::string& prefix) {
  if (file.rfind(prefix, 0) != 0 || file.size() <= prefix.size() + 3) return -1;
  if (file.compare(file.size() - 3, 3, ".pb") != 0) return -1;
  std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 3);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

void flatten_outputs(const Value& v, std::vector<Value>& out) {
  if (v.is(ValueKind::kTuple)) {
    for (const Value& f : v.as_tuple().fields()) flatten_outputs(f, out);
  } else {
    out.push_back(v);
  }
}

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
    os << (i ? ", " : "") << std::setprecision(6) << element(a, i);
  if (n > limit) os << ", ...";
  os << "]";
  if (a.dtype().is_float() && n > 0) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += element(a, i);
    os << "  sum=" << std::setprecision(8) << sum;
  }
  os << "\n";
}

}  // namespace

std::map<std::string, std::string> input_value_options(const std::vector<std::string>& specs) {
  std::map<std::string, std::string> options;
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
    std::string file = eq == std::string::npos ? spec : spec.substr(eq + 1);
    std::string ext = std::filesystem::path(file).extension().string();
    if (ext != ".pb" && ext != ".npy") continue;
    NDArray a;
    try {
      std::string stored;
      a = ext == ".pb" ? runtime::load_tensor_proto(file, &stored) : runtime::load_npy(file);
      if (name.empty()) name = stored;
    } catch (const Error&) {
      continue;  // reported when the inputs are loaded for the run
    }
    DataType dt = a.dtype();
    if (name.empty() || !(dt.is_int() || dt.is_uint()) || a.ndim() > 1 || a.numel() > 64) continue;
    options["value." + name] = file;
  }
  if (!options.empty()) options["unknown-values"] = "ignore";
  return options;
}

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

namespace {

/// ONNX's test data stores bfloat16 tensors as UINT16 (numpy has no bfloat16, and onnx's
/// numpy_helper keeps the bits in uint16): `a` with its bits reinterpreted as bfloat16 when it
/// is uint16 and `bfloat16` is what the model declares, else `a` unchanged.
NDArray bfloat16_bits(const NDArray& a, bool bfloat16) {
  if (!bfloat16 || a.dtype() != DataType::UInt(16)) return a;
  return a.view(a.shape(), DataType::BFloat(16));
}

}  // namespace

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
  std::vector<Value> outputs;
  flatten_outputs(result, outputs);
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
    bool ok = false;
    const NDArray& got = outputs[i].as_tensor();
    want = bfloat16_bits(want, got.dtype() == DataType::BFloat(16));
    compare_tensor(got, want, rtol, atol, line, ok);
    if (ok) {
      os << line.str() << "\n";
    } else {
      fail(line.str());
    }
  }
  return all_ok;
}

int cmd_compile(const CompileOptions& opt, const transform::Pipeline& pipeline,
                transform::PassRegistry& registry, transform::PluginManager& plugins) {
  RX_CHECK(!opt.output.empty()) << "compile: give the output executable with -o OUT.rxe";
  std::string target = pick_target(opt.target, pipeline, kDefaultTarget);
  transform::FrontendOptions values;
  for (const std::string& spec : opt.specialize) {
    size_t eq = spec.find('=');
    RX_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < spec.size())
        << "compile: --specialize " << spec << ": expected NAME=FILE";
    values["value." + spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  Ref<runtime::Executable> exec = compile_module(opt.input, target, pipeline, registry, plugins,
                                                 opt.time_passes, opt.verify_each, opt.stats,
                                                 values, opt.upper_bounds);
  exec->save_to_file(opt.output);
  std::cerr << "relax-driver: wrote " << opt.output << " (target " << target << ")\n";
  return 0;
}

namespace {

/// Runs `func` `warmup` times untimed, then `repeat` times, appending each timed run's time
/// (ms) to `times`. With a budget (`max_seconds` > 0) the warm-up stops once it has taken a
/// quarter of it and the timed runs once they have taken all of it, after one run each.
Value invoke_timed(runtime::VirtualMachine& vm, const std::string& func,
                   const std::vector<Value>& args, int warmup, int repeat, double max_seconds,
                   std::vector<double>& times) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto begin = Clock::now();
  for (int w = 0; w < warmup; ++w) {
    vm.invoke(func, args);
    if (max_seconds > 0 && seconds_since(begin) > max_seconds / 4) break;
  }
  Value result;
  begin = Clock::now();
  for (int r = 0; r < repeat; ++r) {
    auto start = Clock::now();
    result = vm.invoke(func, args);
    times.push_back(seconds_since(start) * 1e3);
    if (max_seconds > 0 && seconds_since(begin) > max_seconds) break;
  }
  return result;
}

/// The largest |got - want| over the outputs of `result` and the set's output_K.pb files, for
/// `run --json`; NaN when they do not line up (count, shape or dtype) or one side of an
/// element is NaN (NaN against NaN counts as equal, as in --check).
double max_abs_error(const Value& result, const TestDataSet& set) {
  std::vector<Value> outputs;
  flatten_outputs(result, outputs);
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

/// Prints the outputs (labelled "PREFIXoutput i"; print_limit < 0: not printed) and writes
/// them under `dir` when given.
void report_outputs(const Value& result, const std::string& prefix, const std::string& dir,
                    int print_limit) {
  std::vector<Value> outputs;
  flatten_outputs(result, outputs);
  for (size_t i = 0; i < outputs.size() && print_limit >= 0; ++i)
    print_value(std::cout, prefix + "output " + std::to_string(i), outputs[i], print_limit);
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is(ValueKind::kTensor)) continue;
    std::string path =
        (std::filesystem::path(dir) / ("output_" + std::to_string(i) + ".npy")).string();
    runtime::save_npy(path, outputs[i].as_tensor());
  }
}

/// `run --profile`: the `top` slowest packed functions (0: all), per run (warm-up runs
/// included), with their share of the summed call time, on `os`.
void print_profile(const runtime::VirtualMachine& vm, int top, std::ostream& os) {
  std::vector<runtime::CallProfile> calls = vm.profile();
  int64_t runs = std::max<int64_t>(1, vm.profiled_runs());
  double total = 0;
  for (const runtime::CallProfile& c : calls) total += c.seconds;
  size_t shown = top == 0 ? calls.size() : std::min(calls.size(), size_t(top));
  os << std::fixed << std::setprecision(3) << "profile: " << calls.size()
     << " functions called, " << total * 1e3 / double(runs) << " ms per run in calls (over "
     << runs << " runs)\n";
  os << "  " << std::setw(10) << "ms/run" << std::setw(7) << "%" << std::setw(11) << "calls/run"
     << "  name\n";
  for (size_t i = 0; i < shown; ++i) {
    const runtime::CallProfile& c = calls[i];
    os << "  " << std::setw(10) << c.seconds * 1e3 / double(runs) << std::setw(7)
       << std::setprecision(1) << (total > 0 ? 100 * c.seconds / total : 0.0) << std::setw(11)
       << double(c.calls) / double(runs) << "  " << c.name << "\n"
       << std::setprecision(3);
  }
  if (shown < calls.size()) os << "  ... " << calls.size() - shown << " more\n";
}

}  // namespace

int cmd_run(const RunOptions& opt, const transform::Pipeline& pipeline,
            transform::PassRegistry& registry, transform::PluginManager& plugins) {
  RX_CHECK(opt.repeat >= 1) << "--repeat must be at least 1, got " << opt.repeat;
  bool test_dir = is_onnx_test_dir(opt.input);
  RX_CHECK(test_dir || !std::filesystem::is_directory(opt.input))
      << "run: " << opt.input
      << " is a directory without model.onnx; expected the ONNX test layout (model.onnx and "
         "test_data_set_N/input_K.pb)";
  std::vector<TestDataSet> sets;
  if (test_dir) sets = find_test_data_sets(opt.input);
  RX_CHECK(!opt.check || !sets.empty())
      << "run --check: " << opt.input
      << (test_dir ? " has no test_data_set_N directories to compare with"
                   : " is not a test directory (model.onnx and test_data_set_N/output_K.pb)");
  RX_CHECK(sets.empty() || opt.inputs.empty())
      << "run: --input cannot be combined with the test data sets of " << opt.input
      << " (their input_K.pb files are the inputs)";
  RX_CHECK(opt.executable.empty() || test_dir)
      << "run --executable " << opt.executable
      << ": only with a test directory (model.onnx and test_data_set_N/), got " << opt.input;
  std::string model = !test_dir                 ? opt.input
                      : !opt.executable.empty() ? opt.executable
                                                : (std::filesystem::path(opt.input) / "model.onnx").string();

  Ref<runtime::Executable> exec;
  // An executable runs as it is; anything else (.rx, a model a frontend reads) is compiled in
  // process, by default for the LLVM JIT.
  bool is_exe = model.size() >= 4 && model.compare(model.size() - 4, 4, ".rxe") == 0;
  if (!is_exe) {
    std::string target = pick_target(opt.target, pipeline, "llvm,jit=1");
    // A model is specialised on the small integer inputs given (the first data set's of a
    // test directory), where its importer needs static values; guards check them at run time.
    transform::FrontendOptions values;
    bool is_rx = model.size() >= 3 && model.compare(model.size() - 3, 3, ".rx") == 0;
    if (!is_rx) values = input_value_options(sets.empty() ? opt.inputs : sets[0].inputs);
    exec = compile_module(model, target, pipeline, registry, plugins, false, false, false, values);
  } else {
    exec = runtime::Executable::load_from_file(model);
  }
  target::register_tir_interp_loader();  // core's kernel library format; backends' come as plugins
  int64_t index = exec->find_function(opt.func);
  RX_CHECK(index >= 0 && exec->functions[size_t(index)].kind == runtime::FunctionKind::kBytecode)
      << "the executable has no function named " << opt.func;
  const runtime::FunctionInfo& f = exec->functions[size_t(index)];
  runtime::VMOptions vm_options;
  vm_options.profile = opt.profile;
  auto vm = runtime::VirtualMachine::create(exec, {{kDLCPU, 0}}, vm_options);

  std::vector<double> times;
  int mismatched_sets = 0;
  double max_err = 0;  // --check --json: over every output of every data set
  if (sets.empty()) {
    Value result = invoke_timed(*vm, opt.func, make_inputs(opt, f), opt.warmup, opt.repeat,
                                opt.max_seconds, times);
    report_outputs(result, "", opt.output_dir, opt.print_limit);
  }
  for (const TestDataSet& set : sets) {
    std::string name = std::filesystem::path(set.dir).filename().string();
    Value result =
        invoke_timed(*vm, opt.func, load_test_inputs(set, f), opt.warmup, opt.repeat,
                     opt.max_seconds, times);
    std::string dir =
        opt.output_dir.empty() ? "" : (std::filesystem::path(opt.output_dir) / name).string();
    // With --check the verdicts replace the printed values.
    report_outputs(result, name + " ", dir, opt.check ? -1 : opt.print_limit);
    if (opt.check && !check_outputs(result, set, opt.rtol, opt.atol, std::cout))
      ++mismatched_sets;
    if (opt.check && opt.json) {
      double err = max_abs_error(result, set);
      max_err = std::isnan(err) ? err : std::max(max_err, err);  // NaN sticks
    }
  }
  // The first run includes one-time costs (first touches, lazy allocations): without warm-up
  // runs it is reported apart from the steady ones.
  std::vector<double> steady(times.begin() + (opt.warmup > 0 ? 0 : 1), times.end());
  std::sort(steady.begin(), steady.end());
  double mean = 0;
  for (double t : steady) mean += t;
  mean /= double(std::max<size_t>(1, steady.size()));
  if (opt.json) {
    // One line for scripts (bench/compare.sh); NaN (outputs that do not line up) is null.
    std::cout << std::fixed << std::setprecision(3) << "{\"first_ms\":" << times[0] << ",\"warmup\":"
              << opt.warmup << ",\"runs\":" << steady.size();
    if (!steady.empty())
      std::cout << ",\"median_ms\":" << steady[steady.size() / 2] << ",\"min_ms\":"
                << steady.front() << ",\"mean_ms\":" << mean;
    if (opt.check) {
      std::cout << ",\"match\":" << (mismatched_sets == 0 ? "true" : "false")
                << ",\"max_abs_err\":";
      if (!std::isfinite(max_err)) std::cout << "null";
      else std::cout << std::scientific << std::setprecision(3) << max_err;
    }
    std::cout << "}\n";
  } else {
    std::cout << std::fixed << std::setprecision(3) << "latency: ";
    if (opt.warmup > 0) std::cout << "after " << opt.warmup << " warm-up runs";
    else std::cout << "first " << times[0] << " ms";
    if (!steady.empty())
      std::cout << "; over " << steady.size() << (opt.warmup > 0 ? "" : " more") << " runs: mean "
                << mean << " ms, median " << steady[steady.size() / 2] << " ms, min "
                << steady.front() << " ms";
    std::cout << "\n";
  }
  if (opt.profile) print_profile(*vm, opt.profile_top, std::cerr);
  if (opt.check) {
    std::cout << "check: " << (sets.size() - size_t(mismatched_sets)) << " of " << sets.size()
              << " test data sets match (rtol " << std::defaultfloat << opt.rtol << ", atol "
              << opt.atol << ")\n";
    if (mismatched_sets > 0) return 1;
  }
  return 0;
}

int cmd_inspect(const std::string& path) {
  Ref<runtime::Executable> exec = runtime::Executable::load_from_file(path);
  std::cout << "executable " << path << "\n\nfunctions:\n";
  for (const runtime::FunctionInfo& f : exec->functions) {
    if (f.kind != runtime::FunctionKind::kBytecode) continue;
    std::cout << "  " << f.name << "(";
    for (size_t i = 0; i < f.param_names.size(); ++i) {
      std::cout << (i ? ", " : "") << f.param_names[i];
      if (i < f.param_types.size()) std::cout << ": " << f.param_types[i];
    }
    std::cout << ")  registers=" << f.register_file_size << " instructions=" << f.end - f.start
              << "\n";
  }
  std::cout << "\npacked functions (kernels and runtime builtins):\n";
  for (const runtime::FunctionInfo& f : exec->functions)
    if (f.kind == runtime::FunctionKind::kPacked) std::cout << "  " << f.name << "\n";
  std::cout << "\nkernel libraries:\n";
  for (const runtime::Library& lib : exec->libraries)
    std::cout << "  " << lib.format << ": " << lib.bytes.size() << " bytes\n";
  std::cout << "\nconstants (" << exec->constants.size() << "):\n";
  for (size_t i = 0; i < exec->constants.size(); ++i) {
    const Value& c = exec->constants[i];
    std::cout << "  c[" << i << "] ";
    if (c.is(ValueKind::kTensor)) {
      NDArray a = c.as_tensor();
      std::cout << "tensor " << runtime::shape_to_string(a.shape()) << " "
                << a.dtype().to_string() << " (" << a.nbytes() << " bytes)\n";
    } else {
      std::cout << c.describe() << "\n";
    }
  }
  std::cout << "\nbytecode:\n" << exec->as_text();
  return 0;
}

}  // namespace relax::driver
