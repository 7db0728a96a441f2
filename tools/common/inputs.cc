// Inputs of a run (inputs.h).
#include "inputs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include "relax/runtime/tensor_io.h"
#include "relax/support/diagnostic.h"

namespace relax::tools {

using runtime::NDArray;
using runtime::Value;

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

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// IEEE binary16 nearest to `f`, ties to even. (kernel/interpreter.h has the same, but this
/// library links only the runtime.)
uint16_t to_float16(float f) {
  uint32_t x = bits_of(f);
  auto sign = uint16_t((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds to 65520 or more: inf
  if (ax < 0x38800000u) {
    // Below the smallest normal (2^-14): a subnormal, in units of 2^-24. The scaling is exact
    // and nearbyint rounds ties to even in the default rounding mode.
    float a;
    std::memcpy(&a, &ax, 4);
    return uint16_t(sign | uint16_t(std::nearbyint(a * 16777216.0f)));
  }
  // Rebias the exponent (127 -> 15) and round the mantissa from 23 to 10 bits, ties to even; a
  // carry out of the mantissa correctly bumps the exponent.
  uint32_t m = ax - 0x38000000u;
  m += 0xfffu + ((m >> 13) & 1u);
  return uint16_t(sign | (m >> 13));
}

/// bfloat16 nearest to `f` (the upper half of a float), ties to even; NaN stays NaN.
uint16_t to_bfloat16(float f) {
  uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

/// Random data for a parameter: uniform [-1, 1) for floats (float16/bfloat16 rounded to
/// nearest), [0, 10) for integers, 0/1 bools.
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
    } else if (dtype == DataType::Float(16)) {
      // Rounding through float first is exact here: float has more than twice the bits.
      reinterpret_cast<uint16_t*>(p)[i] = to_float16(float(real(gen)));
    } else if (dtype == DataType::BFloat(16)) {
      reinterpret_cast<uint16_t*>(p)[i] = to_bfloat16(float(real(gen)));
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

}  // namespace

std::vector<Value> make_inputs(const InputSpec& opt, const runtime::FunctionInfo& f) {
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
    std::string text = spec.substr(eq + 1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    RX_CHECK(eq > 0 && ec == std::errc() && end == text.data() + text.size() && value >= 0)
        << "--dim " << spec << ": expected NAME=VALUE with a non-negative integer VALUE";
    dims[spec.substr(0, eq)] = value;
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
    std::string from_dims;  // the --dim options this shape uses, for messages
    for (const std::string& d : t->dims) {
      char* end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (end != d.c_str() && *end == 0) {
        shape.push_back(v);
      } else {
        auto it = dims.find(d);
        shape.push_back(it == dims.end() ? 1 : it->second);  // symbolic: --dim, else 1
        if (it != dims.end()) from_dims += " --dim " + d + "=" + std::to_string(it->second);
      }
    }
    try {
      args.emplace_back(random_tensor(shape, *dtype, gen));
    } catch (const relax::Error& e) {
      std::string s;
      for (int64_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
      RX_THROW() << "parameter " << name << " of " << f.name << ": cannot make a random "
                 << t->dtype << " input of shape (" << s << ")"
                 << (from_dims.empty() ? "" : " (from" + from_dims + ")") << ": " << e.message();
    }
  }
  return args;
}

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

}  // namespace relax::tools
