// The OpenCL code generator's type table, literals, identifiers and the program prelude
// (opencl_codegen.h).
#include <cmath>
#include <cstdio>
#include <limits>

#include "codegen_internal.h"
#include "relax/kernel/interpreter.h"
#include "relax/support/diagnostic.h"

namespace relax::opencl {

namespace {

/// The one type table: (code, bits) -> (value type, storage type).
struct TypeRow {
  uint8_t code;
  uint8_t bits;
  const char* value;
  const char* storage;
};
constexpr TypeRow kTypes[] = {
    {DataType::kUInt, 1, "int", "uchar"},       {DataType::kInt, 8, "char", "char"},
    {DataType::kInt, 16, "short", "short"},     {DataType::kInt, 32, "int", "int"},
    {DataType::kInt, 64, "long", "long"},       {DataType::kUInt, 8, "uchar", "uchar"},
    {DataType::kUInt, 16, "ushort", "ushort"},  {DataType::kUInt, 32, "uint", "uint"},
    {DataType::kUInt, 64, "ulong", "ulong"},    {DataType::kFloat, 16, "float", "half"},
    {DataType::kBFloat, 16, "float", "ushort"}, {DataType::kFloat, 32, "float", "float"},
    {DataType::kFloat, 64, "double", "double"},
};

const TypeRow& row(DataType t, const CodegenOptions& o, const std::string& kernel) {
  for (const TypeRow& r : kTypes) {
    if (r.code != t.code || r.bits != t.bits) continue;
    RX_CHECK(!(t.code == DataType::kFloat && t.bits == 64) || o.fp64)
        << "OpenCL kernel " << kernel << ": uses float64, but the target says fp64=0 (the "
        << "device has no cl_khr_fp64); expected float32 or a target with fp64=1";
    return r;
  }
  RX_THROW() << "OpenCL kernel " << kernel << ": element type " << t.to_string()
             << " has no OpenCL C type (expected bool, int8/16/32/64, uint8/16/32/64, "
             << "float16/32/64 or bfloat16)";
}

/// `v` wrapped to the width of the integer dtype `t` (two's complement, like the interpreter).
int64_t wrap(DataType t, int64_t v) {
  if (t.bits >= 64) return v;
  auto u = uint64_t(v) & ((uint64_t(1) << t.bits) - 1);
  if (t.code == DataType::kUInt) return int64_t(u);
  int shift = 64 - t.bits;
  return int64_t(u << shift) >> shift;
}

}  // namespace

std::string cl_value_type(DataType t, const CodegenOptions& o, const std::string& kernel) {
  if (t.code == DataType::kFloat && t.bits == 16 && o.fp16) return "half";
  return row(t, o, kernel).value;
}

std::string cl_storage_type(DataType t, const CodegenOptions& o, const std::string& kernel) {
  return row(t, o, kernel).storage;
}

std::string KernelWriter::literal_int(DataType t, int64_t v) {
  if (t.is_bool()) return v ? "1" : "0";
  if (t.is_float()) return literal_float(t, double(v));
  v = wrap(t, v);
  std::string ty = value_type(t);
  if (t.bits == 64) {
    if (t.is_uint()) return "((ulong)" + std::to_string(uint64_t(v)) + "UL)";
    if (v == std::numeric_limits<int64_t>::min()) return "((long)(-9223372036854775807L - 1L))";
    return "((long)" + std::to_string(v) + "L)";
  }
  if (t.is_uint() && t.bits == 32) return "((uint)" + std::to_string(uint64_t(v)) + "U)";
  if (v == std::numeric_limits<int32_t>::min()) return "((int)(-2147483647 - 1))";
  return "((" + ty + ")" + std::to_string(v) + ")";
}

std::string KernelWriter::literal_float(DataType t, double v) {
  bool dbl = t.code == DataType::kFloat && t.bits == 64;
  if (t.code == DataType::kFloat && t.bits == 16)
    v = tir::half_to_float(tir::float_to_half(float(v)));
  else if (is_bf16(t))
    v = tir::bfloat16_to_float(tir::float_to_bfloat16(float(v)));
  else if (!dbl)
    v = double(float(v));
  std::string ty = value_type(t);
  std::string text;
  if (std::isnan(v)) {
    text = dbl ? "(double)NAN" : "NAN";
  } else if (std::isinf(v)) {
    text = std::string(v < 0 ? "(-" : "(") + (dbl ? "(double)INFINITY)" : "INFINITY)");
  } else {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%a", v);
    text = std::string(buf) + (dbl ? "" : "f");
    if (v < 0 || std::signbit(v)) text = "(" + text + ")";
  }
  if (ty == "half") return "((half)" + text + ")";
  return text;
}

std::string cl_identifier(const std::string& name) {
  static const std::unordered_set<std::string> kReserved = {
      "kernel",     "global",   "local",  "private",   "constant",  "int",      "float",
      "half",       "double",   "long",   "char",      "short",     "uint",     "ulong",
      "uchar",      "ushort",   "bool",   "void",      "if",        "else",     "for",
      "while",      "do",       "return", "break",     "continue",  "switch",   "case",
      "default",    "struct",   "union",  "typedef",   "const",     "restrict", "volatile",
      "static",     "extern",   "inline", "sizeof",    "goto",      "signed",   "unsigned",
      "auto",       "register", "enum",   "image2d_t", "sampler_t", "event_t",  "read_only",
      "write_only", "main"};
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) || kReserved.count(out) ||
      out.rfind("rx_", 0) == 0 || out.rfind("get_", 0) == 0 || out.rfind("__", 0) == 0)
    out = "rx_" + out;
  return out;
}

std::string prelude(const CodegenOptions& o) {
  std::string s =
      "// Generated by the Relax OpenCL backend (OpenCL C 1.2).\n"
      "#pragma OPENCL FP_CONTRACT OFF\n";
  if (o.fp16) s += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  if (o.fp64) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  s += R"CL(
// Integer division and remainder like the interpreter: truncating (rx_div/rx_mod) or flooring
// (rx_fdiv/rx_fmod); INT_MIN / -1 wraps; a zero divisor gives 0.
#define RX_SIGNED(T, UT) \
  inline T rx_div_##T(T a, T b) { return b == (T)0 ? (T)0 : b == (T)-1 ? (T)((UT)0 - (UT)a) : (T)(a / b); } \
  inline T rx_mod_##T(T a, T b) { return (b == (T)0 || b == (T)-1) ? (T)0 : (T)(a % b); } \
  inline T rx_fdiv_##T(T a, T b) { \
    T q = rx_div_##T(a, b), r = rx_mod_##T(a, b); \
    return (r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(q - (T)1) : q; } \
  inline T rx_fmod_##T(T a, T b) { \
    T r = rx_mod_##T(a, b); \
    return (r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(r + b) : r; }
#define RX_UNSIGNED(T) \
  inline T rx_div_##T(T a, T b) { return b == (T)0 ? (T)0 : (T)(a / b); } \
  inline T rx_mod_##T(T a, T b) { return b == (T)0 ? (T)0 : (T)(a % b); } \
  inline T rx_fdiv_##T(T a, T b) { return rx_div_##T(a, b); } \
  inline T rx_fmod_##T(T a, T b) { return rx_mod_##T(a, b); }
// Min and max like the interpreter: the first operand unless the second is strictly past it
// (so a NaN first operand wins and a NaN second one loses).
#define RX_MINMAX(T) \
  inline T rx_min_##T(T a, T b) { return b < a ? b : a; } \
  inline T rx_max_##T(T a, T b) { return a < b ? b : a; }
RX_SIGNED(char, uchar) RX_SIGNED(short, ushort) RX_SIGNED(int, uint) RX_SIGNED(long, ulong)
RX_UNSIGNED(uchar) RX_UNSIGNED(ushort) RX_UNSIGNED(uint) RX_UNSIGNED(ulong)
RX_MINMAX(char) RX_MINMAX(short) RX_MINMAX(int) RX_MINMAX(long)
RX_MINMAX(uchar) RX_MINMAX(ushort) RX_MINMAX(uint) RX_MINMAX(ulong) RX_MINMAX(float)

// float16 held in float: rounded to the nearest half (ties to even) after every operation.
inline float rx_rh(float x) { ushort u; vstore_half_rte(x, 0, (half*)&u); return vload_half(0, (const half*)&u); }
inline ushort rx_h2bits(float x) { ushort u; vstore_half_rte(x, 0, (half*)&u); return u; }
inline float rx_bits2h(ushort u) { return vload_half(0, (const half*)&u); }

// bfloat16 (ushort in memory) held in float: nearest even; NaN keeps its sign, quiet.
inline float rx_bf2f(ushort b) { return as_float((uint)b << 16); }
inline ushort rx_f2bf(float x) {
  uint u = as_uint(x);
  if (isnan(x)) return (ushort)((u & 0x80000000u) ? 0xFFC0u : 0x7FC0u);
  return (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float rx_rbf(float x) { return rx_bf2f(rx_f2bf(x)); }

// float -> long / ulong like the interpreter: truncating, saturating, NaN -> 0 (tested
// explicitly: some drivers' convert_long_sat_rtz gives LONG_MIN for NaN), negative values
// wrap to ulong. Narrower integers take the low bits of the long.
inline long rx_f2long(float x) { return isnan(x) ? 0L : convert_long_sat_rtz(x); }
inline ulong rx_f2ulong(float x) { return x >= 0x1p63f ? convert_ulong_sat_rtz(x) : (ulong)rx_f2long(x); }
)CL";
  if (o.fp16) s += "RX_MINMAX(half)\n";
  if (o.fp64)
    s += "RX_MINMAX(double)\n"
         "inline float rx_rh_d(double x) { ushort u; vstore_half_rte(x, 0, (half*)&u); "
         "return vload_half(0, (const half*)&u); }\n"
         "inline long rx_d2long(double x) { return isnan(x) ? 0L : convert_long_sat_rtz(x); }\n"
         "inline ulong rx_d2ulong(double x) { return x >= 0x1p63 ? convert_ulong_sat_rtz(x) : "
         "(ulong)rx_d2long(x); }\n";
  return s;
}

}  // namespace relax::opencl
