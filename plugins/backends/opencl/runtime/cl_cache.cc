// The OpenCL program binary cache (cl_cache.h) and the SHA-256 it is keyed by (FIPS 180-4).
#include "cl_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace relax::opencl {

namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(uint32_t h[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 |
           uint32_t(block[4 * i + 2]) << 8 | uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

void warn(const std::string& message) {
  std::fprintf(stderr, "relax opencl: warning: %s\n", message.c_str());
}

constexpr char kMagic[8] = {'R', 'X', 'C', 'L', 'B', 'I', 'N', '1'};

std::string entry_path(const std::string& dir, const std::array<uint8_t, 32>& key) {
  return dir + "/" + hex(key) + ".bin";
}

bool make_dirs(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string part = dir.substr(0, pos);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

std::array<uint8_t, 32> sha256(const void* data, size_t n) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = static_cast<const uint8_t*>(data);
  size_t full = n / 64;
  for (size_t i = 0; i < full; ++i) compress(h, p + 64 * i);
  uint8_t tail[128] = {};
  size_t rest = n - full * 64;
  if (rest) std::memcpy(tail, p + full * 64, rest);
  tail[rest] = 0x80;
  size_t len = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = uint64_t(n) * 8;
  for (int i = 0; i < 8; ++i) tail[len - 1 - i] = uint8_t(bits >> (8 * i));
  compress(h, tail);
  if (len == 128) compress(h, tail + 64);
  std::array<uint8_t, 32> out;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[size_t(4 * i + j)] = uint8_t(h[i] >> (24 - 8 * j));
  return out;
}

std::string hex(const std::array<uint8_t, 32>& digest) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (uint8_t b : digest) {
    s += k[b >> 4];
    s += k[b & 15];
  }
  return s;
}

std::array<uint8_t, 32> cache_key(const std::vector<std::string>& parts) {
  std::string all;
  for (const std::string& p : parts) {
    uint64_t n = p.size();
    for (int i = 0; i < 8; ++i) all += char(n >> (8 * i));
    all += p;
  }
  return sha256(all.data(), all.size());
}

std::string cache_dir() {
  const char* relax = std::getenv("RELAX_CACHE_DIR");
  if (relax && *relax) return std::string(relax) + "/opencl";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/relax/opencl";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/relax/opencl";
  return "";
}

std::optional<std::vector<uint8_t>> cache_read(const std::string& dir,
                                               const std::array<uint8_t, 32>& key) {
  if (dir.empty()) return std::nullopt;
  std::string path = entry_path(dir, key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;  // not cached yet
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  auto reject = [&](const std::string& why) -> std::optional<std::vector<uint8_t>> {
    warn("ignoring the cached OpenCL program " + path + ": " + why + "; rebuilding it");
    return std::nullopt;
  };
  if (!in.eof() && in.fail()) return reject("it cannot be read");
  const size_t head = sizeof(kMagic) + 32 + 8;
  if (bytes.size() < head + 32) return reject("it is truncated");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return reject("bad magic");
  if (std::memcmp(bytes.data() + sizeof(kMagic), key.data(), 32) != 0)
    return reject("it holds another program's key");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(bytes[sizeof(kMagic) + 32 + size_t(i)]) << (8 * i);
  if (n != bytes.size() - head - 32) return reject("its size field does not match the file");
  std::array<uint8_t, 32> digest = sha256(bytes.data() + head, n);
  if (std::memcmp(digest.data(), bytes.data() + head + n, 32) != 0)
    return reject("its checksum does not match (corrupt)");
  return std::vector<uint8_t>(bytes.begin() + long(head), bytes.begin() + long(head + n));
}

bool cache_write(const std::string& dir, const std::array<uint8_t, 32>& key,
                 const std::vector<uint8_t>& binary) {
  if (dir.empty()) return false;
  if (!make_dirs(dir)) {
    warn("cannot create the OpenCL cache directory " + dir + ": " + std::strerror(errno));
    return false;
  }
  std::string path = entry_path(dir, key);
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." +
                    std::to_string(reinterpret_cast<uintptr_t>(&binary));
  std::string bytes(kMagic, sizeof(kMagic));
  bytes.append(reinterpret_cast<const char*>(key.data()), 32);
  for (int i = 0; i < 8; ++i) bytes += char(uint64_t(binary.size()) >> (8 * i));
  bytes.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  std::array<uint8_t, 32> digest = sha256(binary.data(), binary.size());
  bytes.append(reinterpret_cast<const char*>(digest.data()), 32);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) {
      warn("cannot write the OpenCL cache file " + tmp);
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    warn("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace relax::opencl
