// The shape field of a .npy header: what numpy writes ("()", "(3,)", "(2, 3)", Python 2's "3L")
// reads back; anything else — an empty entry such as "(3,,64)", a sign, trailing text, a
// number beyond int64, a shape whose size overflows — is an error naming the file and quoting
// the header (issue 25).
#include <gtest/gtest.h>

#include "../../common/error_of.h"
#include "relax/runtime/tensor_io.h"

namespace relax::runtime {
namespace {

using test::error_of;

/// A version 1.0 .npy file of uint8 with `shape` written verbatim and `data_bytes` zero bytes.
std::vector<uint8_t> npy(const std::string& shape, size_t data_bytes) {
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
                     char(header.size() >> 8) + header + std::string(data_bytes, '\0');
  return {file.begin(), file.end()};
}

TEST(NpyShape, WhatNumpyWritesReadsBack) {
  EXPECT_EQ(parse_npy(npy("()", 1), "a.npy").shape(), std::vector<int64_t>{});
  EXPECT_EQ(parse_npy(npy("(3,)", 3), "a.npy").shape(), std::vector<int64_t>{3});
  EXPECT_EQ(parse_npy(npy("(2, 3)", 6), "a.npy").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parse_npy(npy("(2, 3,)", 6), "a.npy").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parse_npy(npy("(2L, 3L)", 6), "a.npy").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parse_npy(npy("(0, 5)", 0), "a.npy").shape(), (std::vector<int64_t>{0, 5}));
}

TEST(NpyShape, EmptyEntryIsAnErrorNamingFileAndHeader) {
  std::string e = error_of([] { parse_npy(npy("(3,,64)", 192), "in/x.npy"); });
  EXPECT_NE(e.find("in/x.npy: malformed shape (3,,64) in .npy header (dimension 1 is empty); "
                   "expected a tuple of non-negative integers such as (3, 64): {'descr': '|u1', "
                   "'fortran_order': False, 'shape': (3,,64), }"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of([] { parse_npy(npy("(,)", 0), "x.npy"); }).find("dimension 0 is empty"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_npy(npy("(,3)", 3), "x.npy"); }).find("dimension 0 is empty"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_npy(npy("(3,,)", 3), "x.npy"); }).find("dimension 1 is empty"),
            std::string::npos);
}

TEST(NpyShape, BadEntriesAreErrors) {
  for (const char* shape : {"(-3,)", "(+3,)", "(3x,)", "(3 4,)", "(3.0,)", "(n,)"}) {
    std::string e = error_of([&] { parse_npy(npy(shape, 3), "x.npy"); });
    EXPECT_NE(e.find(std::string("x.npy: malformed shape ") + shape), std::string::npos) << e;
    EXPECT_NE(e.find("dimension 0 is '"), std::string::npos) << e;
  }
  EXPECT_NE(error_of([] {
              parse_npy(npy("(99999999999999999999,)", 0), "x.npy");
            }).find("dimension 0 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_npy(npy("3", 3), "x.npy"); }).find("(not a tuple)"),
            std::string::npos);
}

TEST(NpyShape, SizeOverflowIsAnError) {
  std::string e =
      error_of([] { parse_npy(npy("(9223372036854775807, 9223372036854775807)", 0), "x.npy"); });
  EXPECT_NE(e.find("x.npy: .npy shape (9223372036854775807, 9223372036854775807) has more "
                   "elements than fit in int64"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace relax::runtime
