// check_shared_object (relax/runtime/shared_object.h): the ELF header, the program headers and
// every segment the loader maps must lie inside the file, for this machine's ELF flavour.
#include "relax/runtime/shared_object.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace relax::runtime {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
constexpr uint16_t kMachine = 0;  // not checked
#endif

/// Whether [offset, offset + length) lies in a file of `size` bytes, without overflow.
bool inside(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

/// The checks on the header and program headers; `read` copies `n` bytes at `offset` into
/// `out` or returns false when the file is shorter.
template <class Read>
std::string check(uint64_t size, Read&& read) {
  Elf64_Ehdr eh;
  if (size < sizeof(eh) || !read(0, sizeof(eh), &eh))
    return "too short for an ELF header (" + std::to_string(size) + " bytes)";
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "not an ELF file";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return "not a 64-bit ELF file";
  bool little = eh.e_ident[EI_DATA] == ELFDATA2LSB;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (!little) return "big-endian ELF file on a little-endian machine";
#else
  if (little) return "little-endian ELF file on a big-endian machine";
#endif
  if (eh.e_type != ET_DYN) return "not a shared object (ELF type " + std::to_string(eh.e_type) + ")";
  if (kMachine != 0 && eh.e_machine != kMachine)
    return "built for another machine (ELF machine " + std::to_string(eh.e_machine) + ")";
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0)
    return "damaged program header table (entry size " + std::to_string(eh.e_phentsize) +
           ", " + std::to_string(eh.e_phnum) + " entries)";
  uint64_t table = uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
  if (!inside(eh.e_phoff, table, size))
    return "truncated: its program headers end past the end of the file (" +
           std::to_string(size) + " bytes)";
  if (eh.e_shoff != 0 && !inside(eh.e_shoff, uint64_t(eh.e_shnum) * eh.e_shentsize, size))
    return "truncated: its section headers end past the end of the file (" +
           std::to_string(size) + " bytes)";
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read(eh.e_phoff, table, ph.data())) return "cannot read its program headers";
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC) continue;
    if (!inside(p.p_offset, p.p_filesz, size)) {
      std::ostringstream os;
      os << "truncated: a segment at offset " << p.p_offset << " of " << p.p_filesz
         << " bytes ends past the end of the file (" << size << " bytes)";
      return os.str();
    }
  }
  return "";
}

}  // namespace

std::string check_shared_object(const uint8_t* data, size_t size) {
  return check(size, [&](uint64_t offset, uint64_t n, void* out) {
    if (!inside(offset, n, size)) return false;
    std::memcpy(out, data + offset, n);
    return true;
  });
}

std::string check_shared_object_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "cannot be opened";
  uint64_t size = uint64_t(in.tellg());
  return check(size, [&](uint64_t offset, uint64_t n, void* out) {
    in.seekg(std::streamoff(offset));
    in.read(static_cast<char*>(out), std::streamsize(n));
    return bool(in);
  });
}

}  // namespace relax::runtime
