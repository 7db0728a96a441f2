// The on-disk cache of built OpenCL programs: a program binary (CL_PROGRAM_BINARIES) stored
// under $RELAX_CACHE_DIR/opencl/<key>.bin (default $XDG_CACHE_HOME/relax, else
// ~/.cache/relax), where <key> is the SHA-256 of the source, the build options, the device
// name, the driver version, the platform version and $RELAX_OPENCL_CACHE_TAG (extra key
// material: set it to force a rebuild). So a second run of an executable compiles nothing, and
// a new driver or a changed kernel misses.
//
// File: "RXCLBIN1", the 32-byte key, the binary's size (uint64 little-endian), the binary, the
// binary's SHA-256. A file that is unreadable, short, of another key or whose hash differs is
// ignored with a warning on stderr (the caller rebuilds and overwrites it); writes go to a
// temporary file renamed over the entry, so a reader never sees half a file. No failure of the
// cache is an error of the program.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace relax::opencl {

/// SHA-256 of `n` bytes.
std::array<uint8_t, 32> sha256(const void* data, size_t n);
/// Lower-case hex of the digest.
std::string hex(const std::array<uint8_t, 32>& digest);

/// The cache key of a program: SHA-256 over each part, length-prefixed.
std::array<uint8_t, 32> cache_key(const std::vector<std::string>& parts);

/// The cache directory ($RELAX_CACHE_DIR, $XDG_CACHE_HOME/relax or ~/.cache/relax, then
/// /opencl); empty when none can be named (no HOME).
std::string cache_dir();

/// The binary stored under `key` in `dir`; nullopt when absent (silently) or unusable (with a
/// warning on stderr naming the file and why).
std::optional<std::vector<uint8_t>> cache_read(const std::string& dir,
                                               const std::array<uint8_t, 32>& key);
/// Stores `binary` under `key` (creating `dir`); false (with a warning) when it cannot.
bool cache_write(const std::string& dir, const std::array<uint8_t, 32>& key,
                 const std::vector<uint8_t>& binary);

}  // namespace relax::opencl
