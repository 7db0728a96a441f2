// Chrome trace-event recording (relax/support/trace.h).
#include "relax/support/trace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>

#include "relax/support/diagnostic.h"

namespace relax::trace {

double now_us() {
  static const auto epoch = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - epoch)
      .count();
}

uint32_t thread_index() {
  static std::atomic<uint32_t> next{0};
  thread_local uint32_t id = next++;
  return id;
}

void Recorder::add(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
}

void Recorder::complete(std::string name, std::string category, double start_us,
                        std::vector<std::pair<std::string, std::string>> args) {
  Event e;
  e.name = std::move(name);
  e.category = std::move(category);
  e.start_us = start_us;
  e.dur_us = std::max(0.0, now_us() - start_us);
  e.tid = thread_index();
  e.args = std::move(args);
  add(std::move(e));
}

std::vector<Event> Recorder::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

void Recorder::write_json(std::ostream& os) const {
  std::vector<Event> events = this->events();
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.start_us < b.start_us; });
  os << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  os << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"relax\"}}";
  os << std::fixed << std::setprecision(3);
  for (const Event& e : events) {
    os << ",\n{\"name\":\"" << json_escape(e.name) << "\",\"cat\":\"" << json_escape(e.category)
       << "\",\"ph\":\"X\",\"pid\":1,\"tid\":" << e.tid << ",\"ts\":" << e.start_us
       << ",\"dur\":" << e.dur_us;
    if (!e.args.empty()) {
      os << ",\"args\":{";
      for (size_t i = 0; i < e.args.size(); ++i) {
        os << (i ? "," : "") << "\"" << json_escape(e.args[i].first) << "\":\""
           << json_escape(e.args[i].second) << "\"";
      }
      os << "}";
    }
    os << "}";
  }
  os << "\n]}\n";
  os.unsetf(std::ios::floatfield);
}

void Recorder::write_file(const std::string& path) const {
  std::ofstream f(path);
  RX_CHECK(f.good()) << "--trace " << path << ": cannot open the file for writing";
  write_json(f);
  f.flush();
  RX_CHECK(f.good()) << "--trace " << path << ": writing the trace failed";
}

}  // namespace relax::trace
