// BuildOptions (llvm_build.h): the llvm target's attribute string parsed, and the default
// schedule's knobs sized for a vector width with the ones the string gives kept.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>

#include "llvm_build.h"
#include "relax/support/diagnostic.h"

namespace relax::llvm_backend {

BuildOptions BuildOptions::parse(const std::string& text) {
  BuildOptions o;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    RX_CHECK(eq != std::string::npos) << "llvm target option '" << item << "' is not key=value";
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    auto as_int = [&](int lo, int hi) {
      char* end = nullptr;
      long v = std::strtol(value.c_str(), &end, 10);
      RX_CHECK(!value.empty() && *end == '\0' && v >= lo && v <= hi)
          << "llvm target option " << key << "=" << value << ": expected an integer in [" << lo
          << ", " << hi << "]";
      return int(v);
    };
    static const char* const kScheduleKeys[] = {"mr",   "nr",          "kc",
                                                "mc",   "tile",        "vector-bits",
                                                "register-blocking"};
    for (const char* k : kScheduleKeys)
      if (key == k) o.schedule_keys.push_back(key);
    if (key == "mcpu") o.mcpu = value;
    else if (key == "mtriple") o.mtriple = value;
    else if (key == "opt-level") o.opt_level = as_int(0, 3);
    else if (key == "linker") o.linker = value;
    else if (key == "num-threads") o.num_threads = as_int(0, 1024);
    else if (key == "jit")
      o.jit = as_int(0, 1) == 1;
    else if (key == "schedule") {
      RX_CHECK(value == "default" || value == "none")
          << "llvm target option schedule=" << value << ": expected default or none";
      o.default_schedule = value == "default";
    } else if (key == "mr") o.schedule_options.mr = as_int(1, 16);
    else if (key == "nr") o.schedule_options.nr = as_int(1, 64);
    else if (key == "kc") o.schedule_options.kc = as_int(1, 1 << 20);
    else if (key == "mc") o.schedule_options.mc = as_int(1, 1 << 20);
    else if (key == "tile") o.schedule_options.tile = as_int(1, 1 << 20);
    else if (key == "vector-bits") o.schedule_options.vector_bits = as_int(8, 2048);
    else if (key == "register-blocking")
      o.schedule_options.register_blocking = as_int(0, 1) == 1;
    else
      RX_THROW() << "unknown llvm target option '" << key
                 << "'; valid: mcpu, mtriple, opt-level, linker, num-threads, schedule, jit, mr, "
                    "nr, kc, mc, tile, vector-bits, register-blocking";
  }
  if (std::count(o.schedule_keys.begin(), o.schedule_keys.end(), "vector-bits"))
    o.schedule_options = o.schedule_for(o.schedule_options.vector_bits);
  return o;
}

CpuScheduleOptions BuildOptions::schedule_for(int vector_bits) const {
  CpuScheduleOptions sized = cpu_schedule_options_for(vector_bits);
  const CpuScheduleOptions& given = schedule_options;
  for (const std::string& key : schedule_keys) {
    if (key == "mr") sized.mr = given.mr;
    else if (key == "nr") sized.nr = given.nr;
    else if (key == "kc") sized.kc = given.kc;
    else if (key == "mc") sized.mc = given.mc;
    else if (key == "tile") sized.tile = given.tile;
    else if (key == "vector-bits") sized.vector_bits = given.vector_bits;
    else if (key == "register-blocking") sized.register_blocking = given.register_blocking;
  }
  return sized;
}

}  // namespace relax::llvm_backend
