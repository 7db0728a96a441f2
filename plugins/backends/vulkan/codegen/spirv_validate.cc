// In-process validation and disassembly of the emitted SPIR-V (spirv_codegen.h), with the
// static SPIRV-Tools, and the per-kernel entry point compile_kernel.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <spirv-tools/libspirv.hpp>

#include "relax/support/diagnostic.h"
#include "spirv_codegen.h"
#include "spirv_emitter.h"

namespace relax::vulkan {

namespace {

/// A file name for `kernel` (characters outside [A-Za-z0-9._-] become '_').
std::string file_name(const std::string& kernel) {
  std::string out;
  for (char c : kernel)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out + ".spvasm";
}

std::filesystem::path dump_dir(const char* env) {
  const char* d = std::getenv(env);
  if (d && *d) return d;
  return {};
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream(path) << text;
}

}  // namespace

std::string disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_5);
  std::string text, err;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos,
                               const char* msg) {
    err += "word " + std::to_string(pos.index) + ": " + msg + "\n";
  });
  if (!tools.Disassemble(words, &text,
                         SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return "; disassembly failed: " + err;
  return text;
}

void validate_spirv(const std::string& kernel, const std::vector<uint32_t>& words) {
  for (spv_target_env env : {SPV_ENV_VULKAN_1_1, SPV_ENV_UNIVERSAL_1_5}) {
    spvtools::SpirvTools tools(env);
    std::string msg;
    tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos,
                                 const char* m) {
      msg += "instruction " + std::to_string(pos.index) + ": " + m + "\n";
    });
    if (tools.Validate(words)) continue;
    std::filesystem::path dir = dump_dir("RELAX_DUMP_DIR");
    if (dir.empty()) dir = std::filesystem::temp_directory_path();
    std::filesystem::path path = dir / file_name(kernel);
    std::string env_name = env == SPV_ENV_VULKAN_1_1 ? "vulkan1.1" : "spv1.5";
    write_file(path, "; SPIR-V validation (" + env_name + ") failed for kernel " + kernel +
                         ":\n; " + msg + "\n" + disassemble(words));
    RX_IFAIL() << "vulkan: the SPIR-V of kernel " << kernel << " does not validate for "
               << env_name << ": " << msg << "(disassembly written to " << path.string() << ")";
  }
}

SpirvKernel compile_kernel(const tir::GpuKernel& kernel, const SpirvFeatures& features) {
  SpirvKernel k = detail::Emitter(kernel, features).run();
  std::filesystem::path dir = dump_dir("RELAX_VULKAN_DUMP");
  if (!dir.empty()) {
    // The kernel's TIR as comments above its disassembly.
    std::string tir_text = "; " + tir::to_string(kernel.func), commented;
    for (char c : tir_text) commented += c == '\n' ? std::string("\n; ") : std::string(1, c);
    // Kernels of one name from several compilations: <kernel>.spvasm, <kernel>.1.spvasm, ...
    std::filesystem::path path = dir / file_name(kernel.name);
    for (int i = 1; std::filesystem::exists(path); ++i)
      path = dir / file_name(kernel.name + "." + std::to_string(i));
    write_file(path, commented + "\n" + disassemble(k.words));
  }
  validate_spirv(kernel.name, k.words);
  return k;
}

SpirvKernel emit_spirv(const tir::GpuKernel& kernel, const SpirvFeatures& features) {
  return detail::Emitter(kernel, features).run();
}

}  // namespace relax::vulkan
