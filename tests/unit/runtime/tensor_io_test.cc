// .npy and TensorProto files: round trips for every dtype, NumPy's own header layouts, and the
// errors for damaged files.
#include "relax/runtime/tensor_io.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "../../common/error_of.h"

namespace relax::runtime {
namespace {

using test::error_of;

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

TEST(TensorIO, NpyRoundTripsEveryDtype) {
  for (DataType t : {DataType::Float(32), DataType::Float(64), DataType::Float(16),
                     DataType::Int(8), DataType::Int(16), DataType::Int(32), DataType::Int(64),
                     DataType::UInt(8), DataType::UInt(32), DataType::Bool()}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 4}}) {
      NDArray a = NDArray::empty(shape, t);
      auto* p = static_cast<uint8_t*>(a.data());
      for (size_t i = 0; i < a.nbytes(); ++i) p[i] = t.is_bool() ? uint8_t(i % 2) : uint8_t(i * 7);
      std::vector<uint8_t> file = serialize_npy(a);
      EXPECT_EQ((10 + file[8] + 256 * file[9]) % 64, 0) << "header not 64-byte aligned";
      NDArray b = parse_npy(file);
      EXPECT_EQ(b.shape(), shape) << t.to_string();
      EXPECT_EQ(b.dtype(), t);
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0) << t.to_string();
    }
  }
}

TEST(TensorIO, ReadsNumpyWrittenHeaders) {
  // Exactly what numpy.save writes for np.arange(6, dtype='<i4').reshape(2, 3), and a
  // version 2.0 header as numpy writes for very long headers.
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string v1 = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) + header;
  for (int32_t i = 0; i < 6; ++i) v1.append(reinterpret_cast<const char*>(&i), 4);
  NDArray a = parse_npy(bytes_of(v1));
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data_as<int32_t>()[5], 5);
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8) + char(header.size()) + std::string(3, '\0') +
                   header + v1.substr(10 + header.size());
  EXPECT_EQ(parse_npy(bytes_of(v2)).data_as<int32_t>()[4], 4);
}

TEST(TensorIO, DamagedNpyFilesAreNamedErrors) {
  EXPECT_NE(error_of([] { parse_npy(bytes_of("hello world"), "x.npy"); })
                .find("x.npy: not a .npy file"),
            std::string::npos);
  NDArray a = NDArray::empty({4}, DataType::Float(32));
  std::vector<uint8_t> file = serialize_npy(a);
  file.pop_back();
  EXPECT_NE(error_of([&] { parse_npy(file, "t.npy"); }).find("t.npy: .npy data holds 15 bytes"),
            std::string::npos);
  std::string big = "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n";
  std::string be = std::string("\x93NUMPY\x01\x00", 8) + char(big.size()) + char(0) + big + "abcd";
  EXPECT_NE(error_of([&] { parse_npy(bytes_of(be)); }).find("unsupported .npy dtype '>f4'"),
            std::string::npos);
  std::string fo = "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n";
  std::string f2 = std::string("\x93NUMPY\x01\x00", 8) + char(fo.size()) + char(0) + fo + "abcd";
  EXPECT_NE(error_of([&] { parse_npy(bytes_of(f2)); }).find("Fortran-order"), std::string::npos);
  EXPECT_NE(error_of([] { load_tensor("/nonexistent/x.npy"); }).find("cannot open tensor file"),
            std::string::npos);
  EXPECT_NE(error_of([] { load_tensor("x.txt"); }).find("unknown extension"), std::string::npos);
}

/// Protobuf helpers for hand-made TensorProtos.
struct Proto {
  std::string out;
  void varint(uint64_t v) {
    do {
      uint8_t b = v & 0x7F;
      v >>= 7;
      out.push_back(char(b | (v ? 0x80 : 0)));
    } while (v);
  }
  void key(int field, int wire) { varint(uint64_t(field) << 3 | uint64_t(wire)); }
  void bytes(int field, const std::string& s) {
    key(field, 2);
    varint(s.size());
    out += s;
  }
};

TEST(TensorIO, TensorProtoRawAndTypedFields) {
  // dims [2, 2], FLOAT, raw_data, name "w".
  Proto p;
  p.key(1, 0), p.varint(2), p.key(1, 0), p.varint(2), p.key(2, 0), p.varint(1);
  float vals[4] = {1.5f, -2, 3, 4.25f};
  p.bytes(8, "w");
  p.bytes(9, std::string(reinterpret_cast<const char*>(vals), 16));
  std::string name;
  NDArray a = parse_tensor_proto(bytes_of(p.out), &name);
  EXPECT_EQ(name, "w");
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.data_as<float>()[3], 4.25f);

  // INT64 in packed int64_data (negative values are ten-byte varints); INT8 in int32_data.
  Proto q;
  Proto packed;
  for (int64_t v : {int64_t(-1), int64_t(300), int64_t(1) << 40}) packed.varint(uint64_t(v));
  q.key(1, 0), q.varint(3), q.key(2, 0), q.varint(7), q.bytes(7, packed.out);
  NDArray b = parse_tensor_proto(bytes_of(q.out));
  EXPECT_EQ(b.dtype(), DataType::Int(64));
  EXPECT_EQ(b.data_as<int64_t>()[0], -1);
  EXPECT_EQ(b.data_as<int64_t>()[2], int64_t(1) << 40);
  Proto r;
  r.key(1, 0), r.varint(2), r.key(2, 0), r.varint(3);
  r.key(5, 0), r.varint(uint64_t(int64_t(-5))), r.key(5, 0), r.varint(7);  // unpacked int32_data
  NDArray c = parse_tensor_proto(bytes_of(r.out));
  EXPECT_EQ(c.dtype(), DataType::Int(8));
  EXPECT_EQ(c.data_as<int8_t>()[0], -5);
  EXPECT_EQ(c.data_as<int8_t>()[1], 7);

  // BFLOAT16 (16): the bits of each element in int32_data.
  Proto h;
  h.key(1, 0), h.varint(2), h.key(2, 0), h.varint(16);
  h.key(5, 0), h.varint(0x3F80), h.key(5, 0), h.varint(0xC000);  // 1.0, -2.0
  NDArray d = parse_tensor_proto(bytes_of(h.out));
  EXPECT_EQ(d.dtype(), DataType::BFloat(16));
  EXPECT_EQ(d.data_as<uint16_t>()[0], 0x3F80);
  EXPECT_EQ(d.data_as<uint16_t>()[1], 0xC000);
}

TEST(TensorIO, DamagedTensorProtosAreNamedErrors) {
  Proto p;
  p.key(1, 0), p.varint(3), p.key(2, 0), p.varint(1);
  p.bytes(9, std::string(8, '\0'));  // 8 bytes for 3 floats
  EXPECT_NE(error_of([&] { parse_tensor_proto(bytes_of(p.out), nullptr, "t.pb"); })
                .find("t.pb: raw_data holds 8 bytes; 3 elements of float32 need 12"),
            std::string::npos);
  Proto s;
  s.key(2, 0), s.varint(8);
  EXPECT_NE(error_of([&] { parse_tensor_proto(bytes_of(s.out)); }).find("string tensors"),
            std::string::npos);
  Proto u;
  u.key(2, 0), u.varint(99);
  EXPECT_NE(error_of([&] { parse_tensor_proto(bytes_of(u.out)); })
                .find("unsupported TensorProto data_type 99"),
            std::string::npos);
  std::string truncated = "\x4a\x20" "ab";  // raw_data announcing 32 bytes, holding 2
  EXPECT_NE(error_of([&] { parse_tensor_proto(bytes_of(truncated)); }).find("truncated"),
            std::string::npos);
}

}  // namespace
}  // namespace relax::runtime
