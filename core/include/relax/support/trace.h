// Trace events in the Chrome / Perfetto trace-event format (`--trace FILE`): complete events
// ("ph": "X") with a start and a duration in microseconds, recorded by the compiler (stages and
// passes) and by the VM (every packed-function call: kernels and builtins), written as one JSON
// object {"traceEvents": [...], "displayTimeUnit": "ms"} that ui.perfetto.dev and
// chrome://tracing open.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relax::trace {

/// Microseconds on the steady clock since the process's trace epoch (its first call).
double now_us();

/// One complete event.
struct Event {
  std::string name;
  std::string category;  ///< "compile", "pass", "codegen", "kernel", "builtin", "run"
  double start_us = 0;   ///< now_us() at the start
  double dur_us = 0;
  uint32_t tid = 0;  ///< the recording thread's small id (thread_index())
  std::vector<std::pair<std::string, std::string>> args;  ///< shown in the viewer's details
};

/// A small stable id of the calling thread (0 for the first thread that asks, then 1, ...).
uint32_t thread_index();

/// Collects events from any thread.
class Recorder {
 public:
  void add(Event e);
  /// Adds a complete event that started at `start_us` and ends now.
  void complete(std::string name, std::string category, double start_us,
                std::vector<std::pair<std::string, std::string>> args = {});
  std::vector<Event> events() const;
  /// The trace as JSON, events sorted by start time, process name "relax".
  void write_json(std::ostream& os) const;
  /// write_json to `path`; throws relax::Error naming the path when it cannot be written.
  void write_file(const std::string& path) const;

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

/// `s` as the body of a JSON string (quotes, backslashes and control characters escaped).
std::string json_escape(std::string_view s);

}  // namespace relax::trace
