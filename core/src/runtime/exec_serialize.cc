// The .rxe file format: writer and bounds-checked reader (format in executable.h).
//
// The reader never trusts a count, size, offset or index: every read checks the bytes left,
// every count is checked against the bytes it needs before anything is allocated, and the
// assembled executable goes through Executable::validate() before it is returned.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "relax/runtime/executable.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

constexpr uint8_t kMagic[8] = {'R', 'X', 'E', 'X', 'E', 0, '\r', '\n'};
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 8;
constexpr const char* kSectionNames[] = {"STRS", "FUNC", "CNST", "CODE", "LIBS", "DEVS"};
/// Sections per format version: DEVS from version 3.
size_t section_count(uint32_t version) { return version >= 3 ? 6 : 5; }

enum ConstTag : uint8_t {
  kConstInt = 0,
  kConstFloat = 1,
  kConstString = 2,
  kConstShape = 3,
  kConstTensor = 4
};

uint32_t section_tag(const char* name) {
  return uint32_t(uint8_t(name[0])) | uint32_t(uint8_t(name[1])) << 8 |
         uint32_t(uint8_t(name[2])) << 16 | uint32_t(uint8_t(name[3])) << 24;
}

class ByteWriter {
 public:
  void u8(uint8_t v) { out.push_back(v); }
  void u16(uint16_t v) { put(&v, 2); }
  void u32(uint32_t v) { put(&v, 4); }
  void u64(uint64_t v) { put(&v, 8); }
  void i64(int64_t v) { put(&v, 8); }
  void f64(double v) { put(&v, 8); }
  void bytes(const void* p, size_t n) { put(p, n); }
  std::vector<uint8_t> out;

 private:
  // The format is little-endian, as is every host Relax supports.
  void put(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> data, size_t base) : data_(data), base_(base) {}

  uint8_t u8(const char* what) { return get<uint8_t>(what); }
  uint16_t u16(const char* what) { return get<uint16_t>(what); }
  uint32_t u32(const char* what) { return get<uint32_t>(what); }
  uint64_t u64(const char* what) { return get<uint64_t>(what); }
  int64_t i64(const char* what) { return get<int64_t>(what); }
  double f64(const char* what) { return get<double>(what); }
  std::span<const uint8_t> bytes(uint64_t n, const char* what) {
    need(n, what);
    auto s = data_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return s;
  }
  /// A count of entries that each need at least `min_entry_bytes`; rejects counts the
  /// remaining bytes cannot hold before anyone allocates for them.
  uint32_t count(const char* what, size_t min_entry_bytes) {
    size_t at = offset();
    uint32_t n = u32(what);
    RX_CHECK(uint64_t(n) * min_entry_bytes <= remaining())
        << "damaged executable: " << what << " " << n << " at byte " << at << " needs at least "
        << uint64_t(n) * min_entry_bytes << " bytes, only " << remaining() << " remain";
    return n;
  }
  size_t remaining() const { return data_.size() - pos_; }
  size_t offset() const { return base_ + pos_; }
  void expect_end(const char* what) const {
    RX_CHECK(pos_ == data_.size())
        << "damaged executable: " << remaining() << " unexpected bytes at the end of " << what
        << " (byte " << offset() << ")";
  }

 private:
  void need(uint64_t n, const char* what) const {
    RX_CHECK(n <= remaining()) << "damaged executable: truncated " << what << " at byte "
                               << offset() << " (needs " << n << " bytes, " << remaining()
                               << " remain)";
  }
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::span<const uint8_t> data_;
  size_t base_;
  size_t pos_ = 0;
};

/// Interns the strings that the function table, constants and libraries name.
class StringTable {
 public:
  uint32_t id(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, uint32_t(strings_.size()));
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::map<std::string, uint32_t> ids_;
  std::vector<std::string> strings_;
};

void write_constant(ByteWriter& w, StringTable& strings, const Value& c) {
  switch (c.kind()) {
    case ValueKind::kInt:
      w.u8(kConstInt);
      w.i64(c.as_int());
      break;
    case ValueKind::kFloat:
      w.u8(kConstFloat);
      w.f64(c.as_float());
      break;
    case ValueKind::kString:
      w.u8(kConstString);
      w.u32(strings.id(c.as_string()));
      break;
    case ValueKind::kShape: {
      Shape s = c.as_shape();
      w.u8(kConstShape);
      w.u32(uint32_t(s.size()));
      for (int64_t d : s.dims()) w.i64(d);
      break;
    }
    case ValueKind::kTensor: {
      NDArray t = c.as_tensor();
      RX_CHECK(t.device().device_type == kDLCPU && t.is_contiguous())
          << "save: tensor constants must be compact CPU tensors";
      w.u8(kConstTensor);
      DataType dt = t.dtype();
      w.u8(dt.code);
      w.u8(dt.bits);
      w.u16(dt.lanes);
      w.u32(uint32_t(t.ndim()));
      for (int64_t d : t.shape()) w.i64(d);
      w.u64(t.nbytes());
      w.bytes(t.data(), t.nbytes());
      break;
    }
    default:
      RX_THROW() << "save: a " << value_kind_name(c.kind()) << " cannot be a constant";
  }
}

Value read_constant(ByteReader& r, const std::vector<std::string>& strings, size_t index) {
  size_t at = r.offset();
  uint8_t tag = r.u8("constant tag");
  switch (tag) {
    case kConstInt:
      return r.i64("int constant");
    case kConstFloat:
      return r.f64("float constant");
    case kConstString: {
      uint32_t id = r.u32("string constant");
      RX_CHECK(id < strings.size()) << "damaged executable: constant " << index << " names string "
                                    << id << ", the table has " << strings.size();
      return strings[id];
    }
    case kConstShape: {
      uint32_t ndim = r.count("shape rank", 8);
      std::vector<int64_t> dims(ndim);
      for (auto& d : dims) {
        d = r.i64("shape dimension");
        RX_CHECK(d >= 0) << "damaged executable: constant " << index << " has negative dimension "
                         << d;
      }
      return Shape(std::move(dims));
    }
    case kConstTensor: {
      uint8_t code = r.u8("tensor dtype code");  // separate statements: reads must be in order
      uint8_t bits = r.u8("tensor dtype bits");
      uint16_t lanes = r.u16("tensor dtype lanes");
      DataType dt(code, bits, lanes);
      RX_CHECK(dt.code <= DataType::kBFloat && dt.bits > 0 && dt.lanes > 0)
          << "damaged executable: constant " << index << " has invalid dtype (code " << int(dt.code)
          << ", bits " << int(dt.bits) << ", lanes " << dt.lanes << ")";
      uint32_t ndim = r.count("tensor rank", 8);
      std::vector<int64_t> shape(ndim);
      uint64_t numel = 1;
      for (auto& d : shape) {
        d = r.i64("tensor dimension");
        RX_CHECK(d >= 0 && (d == 0 || numel <= (uint64_t(1) << 48) / uint64_t(d)))
            << "damaged executable: constant " << index << " has bad dimension " << d;
        numel *= uint64_t(d);
      }
      uint64_t nbytes = r.u64("tensor byte size");
      RX_CHECK(nbytes == numel * uint64_t(dt.bytes()))
          << "damaged executable: constant " << index << " holds " << nbytes << " bytes, its shape "
          << shape_to_string(shape) << " " << dt.to_string() << " needs "
          << numel * uint64_t(dt.bytes());
      auto data = r.bytes(nbytes, "tensor data");
      return NDArray::from_bytes(shape, dt, data.data());
    }
    default:
      RX_THROW() << "damaged executable: constant " << index << " at byte " << at
                 << " has unknown tag " << int(tag);
  }
}

void read_code(ByteReader& r, Executable& exec) {
  uint32_t n = r.count("instruction count", 9);
  exec.instructions.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    Instruction in;
    uint8_t op = r.u8("opcode");
    RX_CHECK(op <= uint8_t(Opcode::kIf))
        << "damaged executable: instruction " << i << " has unknown opcode " << int(op);
    in.op = Opcode(op);
    switch (in.op) {
      case Opcode::kCall: {
        in.reg = r.i64("call destination");
        in.value = r.u32("call function index");
        in.num_args = r.count("call argument count", 9);
        RX_CHECK(exec.args.size() + in.num_args <= UINT32_MAX)
            << "damaged executable: too many arguments";
        in.args_begin = uint32_t(exec.args.size());
        for (uint32_t a = 0; a < in.num_args; ++a) {
          uint8_t kind = r.u8("argument kind");
          RX_CHECK(kind <= uint8_t(ArgKind::kFuncIndex))
              << "damaged executable: instruction " << i << " has argument of unknown kind "
              << int(kind);
          exec.args.push_back(Arg{ArgKind(kind), r.i64("argument value")});
        }
        break;
      }
      case Opcode::kRet:
        in.reg = r.i64("ret register");
        break;
      case Opcode::kGoto:
        in.value = r.i64("goto offset");
        break;
      case Opcode::kIf:
        in.reg = r.i64("if condition");
        in.value = r.i64("if offset");
        break;
    }
    exec.instructions.push_back(in);
  }
}

}  // namespace

std::vector<uint8_t> Executable::save() const {
  validate();
  StringTable strings;
  ByteWriter funcs, consts, code, libs, devs;
  funcs.u32(uint32_t(functions.size()));
  for (const FunctionInfo& f : functions) {
    funcs.u32(strings.id(f.name));
    funcs.u8(uint8_t(f.kind));
    funcs.u32(uint32_t(f.num_params));
    funcs.u32(uint32_t(f.register_file_size));
    funcs.u32(uint32_t(f.start));
    funcs.u32(uint32_t(f.end));
    for (const std::string& p : f.param_names) funcs.u32(strings.id(p));
    // Version 2: a count (0 or num_params) and the parameter types.
    funcs.u32(uint32_t(f.param_types.size()));
    for (const std::string& t : f.param_types) funcs.u32(strings.id(t));
  }
  consts.u32(uint32_t(constants.size()));
  for (const Value& c : constants) write_constant(consts, strings, c);
  code.u32(uint32_t(instructions.size()));
  for (const Instruction& in : instructions) {
    code.u8(uint8_t(in.op));
    switch (in.op) {
      case Opcode::kCall:
        code.i64(in.reg);
        code.u32(uint32_t(in.value));
        code.u32(in.num_args);
        for (uint32_t a = 0; a < in.num_args; ++a) {
          code.u8(uint8_t(args[in.args_begin + a].kind));
          code.i64(args[in.args_begin + a].value);
        }
        break;
      case Opcode::kRet:
        code.i64(in.reg);
        break;
      case Opcode::kGoto:
        code.i64(in.value);
        break;
      case Opcode::kIf:
        code.i64(in.reg);
        code.i64(in.value);
        break;
    }
  }
  libs.u32(uint32_t(libraries.size()));
  for (const Library& lib : libraries) {
    libs.u32(strings.id(lib.format));
    libs.u64(lib.bytes.size());
    libs.bytes(lib.bytes.data(), lib.bytes.size());
    libs.u32(uint32_t(lib.device_index));
  }
  devs.u32(uint32_t(devices.size()));
  for (const ExecDevice& d : devices) {
    devs.u32(uint32_t(d.device_type));
    devs.u32(uint32_t(d.device_id));
    devs.u32(strings.id(d.target));
  }
  ByteWriter strs;
  strs.u32(uint32_t(strings.strings().size()));
  for (const std::string& s : strings.strings()) {
    strs.u32(uint32_t(s.size()));
    strs.bytes(s.data(), s.size());
  }

  ByteWriter payload;
  const ByteWriter* sections[] = {&strs, &funcs, &consts, &code, &libs, &devs};
  for (size_t i = 0; i < 6; ++i) {
    payload.u32(section_tag(kSectionNames[i]));
    payload.u64(sections[i]->out.size());
    payload.bytes(sections[i]->out.data(), sections[i]->out.size());
  }
  ByteWriter file;
  file.bytes(kMagic, sizeof(kMagic));
  file.u32(kExecutableFormatVersion);
  file.u32(0);
  file.u64(payload.out.size());
  file.u64(fnv1a64(payload.out));
  file.bytes(payload.out.data(), payload.out.size());
  return std::move(file.out);
}

Ref<Executable> Executable::load(std::span<const uint8_t> bytes) {
  RX_CHECK(bytes.size() >= kHeaderSize)
      << "not a Relax executable: " << bytes.size() << " bytes is shorter than the " << kHeaderSize
      << "-byte header";
  ByteReader header(bytes.first(kHeaderSize), 0);
  auto magic = header.bytes(8, "magic");
  RX_CHECK(std::memcmp(magic.data(), kMagic, 8) == 0)
      << "not a Relax executable (bad magic number)";
  uint32_t version = header.u32("format version");
  RX_CHECK(version >= kOldestExecutableFormatVersion && version <= kExecutableFormatVersion)
      << "unsupported executable format version " << version << " (this runtime reads versions "
      << kOldestExecutableFormatVersion << " to " << kExecutableFormatVersion << ")";
  uint32_t flags = header.u32("flags");
  RX_CHECK(flags == 0) << "damaged executable: unknown header flags " << flags;
  uint64_t payload_size = header.u64("payload size");
  uint64_t checksum = header.u64("checksum");
  RX_CHECK(payload_size == bytes.size() - kHeaderSize)
      << "damaged executable: the header announces " << payload_size
      << " payload bytes, the file has " << bytes.size() - kHeaderSize
      << (payload_size > bytes.size() - kHeaderSize ? " (truncated)" : "");
  auto payload = bytes.subspan(kHeaderSize);
  RX_CHECK(fnv1a64(payload) == checksum) << "damaged executable: checksum mismatch";

  auto exec = make_ref<Executable>();
  Executable& e = const_cast<Executable&>(*exec);
  std::vector<std::string> strings;
  ByteReader r(payload, kHeaderSize);
  for (size_t section_index = 0; section_index < section_count(version); ++section_index) {
    const char* name = kSectionNames[section_index];
    size_t at = r.offset();
    uint32_t tag = r.u32("section tag");
    RX_CHECK(tag == section_tag(name))
        << "damaged executable: expected section " << name << " at byte " << at;
    uint64_t size = r.u64("section size");
    ByteReader s(r.bytes(size, name), r.offset());
    std::string_view section(name);
    if (section == "STRS") {
      uint32_t n = s.count("string count", 4);
      strings.reserve(n);
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t len = s.u32("string length");
        auto chars = s.bytes(len, "string");
        strings.emplace_back(reinterpret_cast<const char*>(chars.data()), chars.size());
      }
    } else if (section == "FUNC") {
      auto string_at = [&](uint32_t id, const char* what) -> const std::string& {
        RX_CHECK(id < strings.size()) << "damaged executable: " << what << " names string " << id
                                      << ", the table has " << strings.size();
        return strings[id];
      };
      uint32_t n = s.count("function count", 21);
      e.functions.resize(n);
      for (FunctionInfo& f : e.functions) {
        f.name = string_at(s.u32("function name"), "a function name");
        uint8_t kind = s.u8("function kind");
        RX_CHECK(kind <= uint8_t(FunctionKind::kPacked))
            << "damaged executable: function '" << f.name << "' has unknown kind " << int(kind);
        f.kind = FunctionKind(kind);
        size_t params_at = s.offset();
        f.num_params = s.u32("parameter count");
        f.register_file_size = s.u32("register file size");
        f.start = s.u32("instruction start");
        f.end = s.u32("instruction end");
        RX_CHECK(uint64_t(f.num_params) * 4 <= s.remaining())
            << "damaged executable: function '" << f.name << "' declares " << f.num_params
            << " parameters at byte " << params_at << ", more than the section holds";
        for (int64_t p = 0; p < f.num_params; ++p)
          f.param_names.push_back(string_at(s.u32("parameter name"), "a parameter name"));
        if (version >= 2) {
          uint32_t num_types = s.u32("parameter type count");
          RX_CHECK(num_types == 0 || int64_t(num_types) == f.num_params)
              << "damaged executable: function '" << f.name << "' has " << num_types
              << " parameter types for " << f.num_params << " parameters";
          for (uint32_t p = 0; p < num_types; ++p)
            f.param_types.push_back(string_at(s.u32("parameter type"), "a parameter type"));
        }
      }
    } else if (section == "CNST") {
      uint32_t n = s.count("constant count", 5);
      e.constants.reserve(n);
      for (uint32_t i = 0; i < n; ++i) e.constants.push_back(read_constant(s, strings, i));
    } else if (section == "CODE") {
      read_code(s, e);
    } else if (section == "LIBS") {
      uint32_t n = s.count("library count", 12);
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t id = s.u32("library format");
        RX_CHECK(id < strings.size())
            << "damaged executable: library " << i << " names string " << id;
        uint64_t len = s.u64("library size");
        auto data = s.bytes(len, "library bytes");
        int32_t device = version >= 3 ? int32_t(s.u32("library device")) : 0;
        e.libraries.push_back(
            Library{strings[id], std::vector<uint8_t>(data.begin(), data.end()), device});
      }
    } else {
      uint32_t n = s.count("device count", 12);
      for (uint32_t i = 0; i < n; ++i) {
        ExecDevice d;
        d.device_type = int32_t(s.u32("device type"));
        d.device_id = int32_t(s.u32("device id"));
        uint32_t id = s.u32("device target");
        RX_CHECK(id < strings.size())
            << "damaged executable: device " << i << " names string " << id;
        d.target = strings[id];
        e.devices.push_back(std::move(d));
      }
    }
    s.expect_end(name);
  }
  r.expect_end("the file");
  e.validate();
  return exec;
}

void Executable::save_to_file(const std::string& path) const {
  std::vector<uint8_t> data = save();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  RX_CHECK(out.good()) << "cannot write executable '" << path << "': " << std::strerror(errno);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  RX_CHECK(out.good()) << "writing executable '" << path << "' failed: " << std::strerror(errno);
}

Ref<Executable> Executable::load_from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in.good()) << "cannot open executable '" << path << "': " << std::strerror(errno);
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return load(data);
  } catch (const Error& e) {
    RX_THROW() << path << ": " << e.message();
  }
}

}  // namespace relax::runtime
