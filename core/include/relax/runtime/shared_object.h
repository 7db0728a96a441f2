// Checking a shared library before dlopen. The dynamic loader maps a file by its program
// headers and trusts them: a truncated or damaged library makes it read past the end of the
// mapping, and the process dies of SIGBUS inside dlopen. Plugins and runtime plugins come from
// directories people copy files into, so every library is checked first and a bad one is
// refused with its path and what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace relax::runtime {

/// Why the ELF image `data` (`size` bytes, the whole file) is no loadable shared object for
/// this machine — not ELF, another class, byte order or machine, not a shared object, or a
/// header, program header or segment reaching past the end — or "" when it looks sound.
std::string check_shared_object(const uint8_t* data, size_t size);

/// check_shared_object of the file at `path` (only its headers are read); "" when it looks
/// sound. The reason does not repeat the path.
std::string check_shared_object_file(const std::string& path);

}  // namespace relax::runtime
