#include "sim/workload/workload_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <google/protobuf/stubs/logging.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/base/error.h"
#include "sim/base/io.h"
#include "sim/workload/workload_check.h"

namespace pf {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const std::string& file, const std::string& message) {
  throw InputError({file}, "", message);
}

std::string SystemReason(int err) { return std::strerror(err); }

// What Protobuf logged while parsing (it reports invalid UTF-8 in a string
// field on stderr); kept for our own message instead.
std::string* captured_log = nullptr;
void CaptureLog(google::protobuf::LogLevel, const char*, int, const std::string& message) {
  if (captured_log && captured_log->empty()) *captured_log = message;
}

// The first sentence of a Protobuf log message, without its advice.
std::string FirstSentence(std::string m) {
  if (size_t dot = m.find(". "); dot != std::string::npos) m.resize(dot);
  while (!m.empty() && (m.back() == ' ' || m.back() == '.' || m.back() == '\n')) m.pop_back();
  return m;
}

// Up to kMaxWorkloadFileBytes + 1 bytes of `path` (one more tells it is too
// large, even for a file whose size stat cannot give, like a pipe).
std::string ReadCapped(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) Fail(path, "is a directory, not a workload file");
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, "cannot open: " + SystemReason(errno));
  std::string bytes;
  char chunk[1 << 16];
  while (in && static_cast<long long>(bytes.size()) <= kMaxWorkloadFileBytes) {
    in.read(chunk, sizeof chunk);
    bytes.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) Fail(path, "cannot read: " + SystemReason(errno));
  if (static_cast<long long>(bytes.size()) > kMaxWorkloadFileBytes)
    Fail(path, "larger than " + std::to_string(kMaxWorkloadFileBytes >> 20) +
                   " MiB; Preflight reads workloads up to that size");
  return bytes;
}


}  // namespace

preflight::Workload ParseWorkload(const std::string& bytes, const std::string& name, const Scenario& s) {
  if (bytes.empty()) Fail(name, "is empty, not a preflight.Workload");
  preflight::Workload w;
  std::string log;
  captured_log = &log;
  google::protobuf::LogHandler* previous = google::protobuf::SetLogHandler(&CaptureLog);
  const bool parsed = w.ParseFromString(bytes);
  google::protobuf::SetLogHandler(previous);
  captured_log = nullptr;
  if (!parsed) {
    const std::string why = log.empty()
                                ? "truncated or corrupt Protobuf data, " + std::to_string(bytes.size()) + " bytes"
                                : FirstSentence(log);
    Fail(name, "not a preflight.Workload (" + why + ")");
  }
  ValidateWorkload(w, s, name);
  return w;
}

preflight::Workload LoadWorkload(const std::string& path, const Scenario& s) {
  return ParseWorkload(ReadCapped(path), path, s);
}

void SaveWorkload(const preflight::Workload& w, const std::string& path) {
  std::string bytes;
  if (!w.SerializeToString(&bytes)) Fail(path, "cannot write: the workload does not serialize (over 2 GiB?)");
  if (const int err = WriteFileAtomically(path, bytes)) Fail(path, "cannot write: " + WriteErrorReason(err));
}

}  // namespace pf
