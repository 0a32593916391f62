#include "sim/sweep/sweep_runner.h"

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/base/error.h"
#include "sim/base/io.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/yaml_view.h"

namespace pf {
namespace {

using Clock = std::chrono::steady_clock;

// Reads exactly n bytes (false at end of file or on an error).
bool ReadExactly(int fd, void* buf, size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= static_cast<size_t>(k);
  }
  return true;
}

// A grid key the scenario does not have is bad input, not a row per point:
// each axis is loaded with its first value, and an "unknown key" error on
// that very key refuses the sweep. The scenario with the --set flags alone
// must load too.
// (A point that fails validation is a row; only an unknown key, or a path
// below one, refuses the sweep. The scenario itself with the --set flags
// need not validate: the grid may be what makes it valid.)
void CheckKeys(const SweepOptions& o) {
  for (const GridAxis& a : o.grid.axes) {
    std::vector<std::string> sets = o.sets;
    sets.push_back(a.key + "=" + a.values.front());
    try {
      LoadScenario(o.scenario, sets);
    } catch (const InputError& e) {
      const bool on_key = e.key() == a.key || a.key.rfind(e.key() + ".", 0) == 0;
      if (e.message().rfind("unknown key", 0) == 0 && on_key)
        throw InputError(Location{"--grid " + Shown(a.key), 0, 0}, "",
                         e.key() == a.key ? e.message() : e.key() + ": " + e.message());
    }
  }
}

// The lines of `path` (each with its newline) and whether the last one was
// cut short (no newline).
// A results file is a regular file of at most kMaxResultsBytes (rows are
// 100-300 bytes: a million points of rows to a shard fit), read whole;
// anything else is refused before it is read.
constexpr std::uintmax_t kMaxResultsBytes = std::uintmax_t(1) << 30;

std::vector<std::string> Lines(const std::string& path, bool& truncated) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(Location{path, 0, 0}, "",
                     fs::is_directory(st) ? "is a directory, not a sweep results file" : "is not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxResultsBytes)
    throw InputError(Location{path, 0, 0}, "",
                     fmt::format("is {} bytes; a sweep results file is at most {} bytes", size, kMaxResultsBytes));
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = 0;
  truncated = false;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      truncated = true;
      break;
    }
    lines.push_back(text.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  return lines;
}

SweepFormat FormatOf(const std::string& first_line) {
  return !first_line.empty() && first_line[0] == '{' ? SweepFormat::kJsonl : SweepFormat::kCsv;
}

// Lines the header takes: the sweep line, and the column names for CSV.
size_t HeaderLines(SweepFormat f) { return f == SweepFormat::kCsv ? 2 : 1; }

// "37/64 points  2.1/s  13 s left", redrawn in place.
void DrawProgress(long long done, long long total, double seconds) {
  const double rate = seconds > 0 ? done / seconds : 0;
  const int width = 30, filled = total > 0 ? int(width * done / total) : width;
  const std::string eta = rate > 0 ? fmt::format("{:.0f} s left", (total - done) / rate) : "";
  std::fprintf(stderr, "\r[%s%s] %lld/%lld points  %.1f/s  %s   ", std::string(filled, '=').c_str(),
               std::string(width - filled, ' ').c_str(), done, total, rate, eta.c_str());
  std::fflush(stderr);
}

struct Worker {
  pid_t pid = -1;
  int to = -1, from = -1;  // pipes: point numbers in, rows out
  long long point = -1;    // the point it is on (-1: idle)
};

// A worker's life: read a point number, write back its row (length, then
// bytes), until its input closes.
[[noreturn]] void WorkerLoop(const SweepOptions& o, int in, int out) {
  long long point;
  while (ReadExactly(in, &point, sizeof point)) {
    bool simulated = false;
    const std::string row = EvaluatePoint(o.scenario, o.sets, o.grid, point, o.format, &simulated);
    const uint64_t n = row.size();
    const char status = simulated ? 1 : 0;
    if (!WriteAll(out, std::string(1, status) + std::string(reinterpret_cast<const char*>(&n), sizeof n)) ||
        !WriteAll(out, row))
      _exit(3);
  }
  _exit(0);
}

}  // namespace

SweepSummary RunSweep(const SweepOptions& o) {
  const auto start = Clock::now();
  std::error_code same;
  if (std::filesystem::equivalent(o.output, o.scenario, same))
    throw InputError(Location{"-o " + o.output, 0, 0}, "", "is the scenario file itself; refusing to overwrite an input");
  // The scenario is read (a regular YAML file of at most 1 MiB holding a
  // mapping) before any point runs or the results file is touched; what
  // the grid's values make of it is each point's row.
  if (!LoadYamlFile(o.scenario).IsMap())
    throw InputError(Location{o.scenario, 0, 0}, "", "expected a mapping of scenario keys");
  CheckKeys(o);
  const std::string signature = SweepSignature(o.scenario, o.sets, o.grid);
  const std::string header = SweepHeader(signature, o.grid, o.shard, o.format);
  std::vector<long long> points;  // this shard's, in order
  for (long long i = o.shard.index; i < o.grid.points(); i += o.shard.count) points.push_back(i);
  SweepSummary summary;
  summary.points = static_cast<long long>(points.size());

  // What the file has already (resume), checked before it is touched.
  size_t done = 0;
  std::error_code ec;
  const bool exists = std::filesystem::exists(o.output, ec);
  if (o.resume && exists) {
    bool truncated = false;
    const std::vector<std::string> lines = Lines(o.output, truncated);
    const size_t head = HeaderLines(o.format);
    std::string have;
    for (size_t k = 0; k < std::min(head, lines.size()); ++k) have += lines[k];
    if (lines.size() < head || have != header)
      throw InputError(Location{"--resume " + o.output, 0, 0}, "",
                       "the file is not this sweep's results (another scenario, --set, --grid, --shard or "
                       "--format); refusing to append to it");
    for (size_t k = head; k < lines.size(); ++k) {
      if (done >= points.size() || PointOfRow(lines[k], o.format) != points[done])
        throw InputError(Location{"--resume " + o.output, int(k + 1), 0}, "",
                         "line " + std::to_string(k + 1) + " is not the next point of this sweep; refusing to append");
      if (const std::string problem = RowProblem(lines[k], o.format); !problem.empty())
        throw InputError(Location{"--resume " + o.output, int(k + 1), 0}, "",
                         "line " + std::to_string(k + 1) + " " + problem +
                             ": the file was edited or damaged; refusing to append");
      ++done;
    }
    if (truncated) {  // a row cut short by an interruption: drop it, it is run again
      std::uintmax_t keep = 0;
      for (const std::string& l : lines) keep += l.size();
      std::filesystem::resize_file(o.output, keep);
    }
  }
  summary.already = static_cast<long long>(done);

  // Workers, one per job (no more than points left, nor than the open-file
  // limit allows: 4 descriptors each), forked before any SimGrid run in
  // this process and before the results file is touched. A worker that
  // dies must not kill the sweep through SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  std::deque<long long> queue(points.begin() + static_cast<long>(done), points.end());
  rlimit files{};
  const long long fd_room = getrlimit(RLIMIT_NOFILE, &files) == 0 ? (long long)(files.rlim_cur) / 4 - 4 : 64;
  const int jobs = static_cast<int>(
      std::max<long long>(1, std::min<long long>({std::max(1, o.jobs), std::max<long long>(1, queue.size()), fd_room})));
  std::vector<Worker> workers;
  std::fflush(nullptr);
  for (int k = 0; k < jobs && !queue.empty(); ++k) {
    int in[2], back[2];
    if (pipe(in) != 0) throw std::runtime_error(std::string("pipe(): ") + std::strerror(errno));
    if (pipe(back) != 0) {
      close(in[0]), close(in[1]);
      throw std::runtime_error(std::string("pipe(): ") + std::strerror(errno));
    }
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork(): ") + std::strerror(errno));
    if (pid == 0) {
      close(in[1]), close(back[0]);
      for (const Worker& w : workers) close(w.to), close(w.from);
      WorkerLoop(o, in[0], back[1]);
    }
    close(in[0]), close(back[1]);
    workers.push_back({pid, in[1], back[0], -1});
  }
  auto assign = [&](Worker& w) {
    if (queue.empty()) {
      w.point = -1;
      return;
    }
    w.point = queue.front();
    queue.pop_front();
    if (write(w.to, &w.point, sizeof w.point) != sizeof w.point)
      throw std::runtime_error("a sweep worker stopped taking points");
  };
  for (Worker& w : workers) assign(w);

  std::FILE* out = std::fopen(o.output.c_str(), o.resume && exists ? "ab" : "wb");
  if (!out) throw InputError(Location{"-o " + o.output, 0, 0}, "", std::string("cannot write: ") + std::strerror(errno));
  // A failed write (a full disk) stops the sweep with exit 2: the rows
  // before it are whole in the file, and --resume goes on from them.
  size_t written_rows = 0;
  auto put = [&](const std::string& text) {
    if (std::fputs(text.c_str(), out) < 0 || std::fflush(out) != 0)
      throw InputError(Location{"-o " + o.output, 0, 0}, "",
                       fmt::format("cannot write: {} ({} rows written this run; --resume goes on from the last whole row "
                                   "once there is room)",
                                   std::strerror(errno), written_rows));
  };
  if (!(o.resume && exists)) put(header);

  // Rows come back in any order and leave in point order.
  std::map<long long, std::string> waiting;
  size_t next = done;
  const long long total = summary.points;
  while (next < points.size()) {
    std::vector<pollfd> fds;
    for (const Worker& w : workers)
      if (w.point >= 0) fds.push_back({w.from, POLLIN, 0});
    if (fds.empty()) throw std::logic_error("sweep: points left but no worker on one");
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll(): ") + std::strerror(errno));
    }
    for (Worker& w : workers) {
      const auto f = std::find_if(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == w.from; });
      if (f == fds.end() || !(f->revents & (POLLIN | POLLHUP))) continue;
      uint64_t n = 0;
      char status = 0;
      std::string row;
      if (ReadExactly(w.from, &status, 1) && ReadExactly(w.from, &n, sizeof n) && n < (1u << 30)) {
        row.resize(n);
        if (!ReadExactly(w.from, row.data(), n)) row.clear();
      }
      ++summary.simulated;
      if (row.empty()) {  // the worker died on this point: a row says so, the others go on
        int code = 0;
        waitpid(w.pid, &code, 0);
        const std::string why = WIFSIGNALED(code) ? fmt::format("the sweep worker was killed by signal {} ({})",
                                                                WTERMSIG(code), strsignal(WTERMSIG(code)))
                                                  : "the sweep worker ended without a row";
        waiting[w.point] = ErrorRow(o.grid, w.point, o.format, why);
        ++summary.infeasible;
        close(w.to), close(w.from);
        w.to = w.from = -1, w.point = -1, w.pid = -1;
        if (std::none_of(workers.begin(), workers.end(), [](const Worker& x) { return x.pid > 0; }) && !queue.empty())
          throw std::runtime_error("every sweep worker died; the rows so far are in the file (--resume goes on)");
        continue;
      }
      if (status == 0) ++summary.infeasible;
      waiting[w.point] = std::move(row);
      assign(w);
    }
    for (auto it = waiting.find(points[next]); it != waiting.end(); it = waiting.find(points[next])) {
      put(it->second);
      ++written_rows;
      waiting.erase(it);
      if (++next == points.size()) break;
    }
    if (o.progress)
      DrawProgress(static_cast<long long>(next), total, std::chrono::duration<double>(Clock::now() - start).count());
  }
  for (Worker& w : workers)
    if (w.to >= 0) close(w.to);
  for (Worker& w : workers) {
    if (w.pid <= 0) continue;
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(w.from);
  }
  if (std::fclose(out) != 0)
    throw InputError(Location{"-o " + o.output, 0, 0}, "", std::string("cannot write: ") + std::strerror(errno));
  if (o.progress) std::fputs("\n", stderr);
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

long long MergeSweeps(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty()) throw InputError(Location{"merge", 0, 0}, "", "no shard files given");
  std::string header, columns, signature;
  long long total = -1;
  SweepFormat format = SweepFormat::kCsv;
  std::map<long long, std::string> rows;
  for (const std::string& path : inputs) {
    bool truncated = false;
    const std::vector<std::string> lines = Lines(path, truncated);
    const Location at{path, 0, 0};
    if (lines.empty()) throw InputError(at, "", "is empty or not readable");
    const SweepFormat f = FormatOf(lines[0]);
    const SweepIdentity id = IdentityOfHeader(lines[0], f);
    if (id.signature.empty()) throw InputError(at, "", "is not a Preflight sweep file (its first line names no sweep)");
    if (truncated) throw InputError(at, "", "ends with a truncated row: run its shard again with --resume");
    if (signature.empty()) {
      signature = id.signature, total = id.points, format = f;
      if (f == SweepFormat::kCsv && lines.size() > 1) columns = lines[1];
    } else if (f == SweepFormat::kCsv && lines.size() > 1 && lines[1] != columns) {
      throw InputError(Location{path, 2, 0}, "", "names other columns than line 2 of " + inputs.front() +
                                                     ": the file was edited or damaged");
    } else if (id.signature != signature || id.points != total || f != format) {
      throw InputError(at, "", "is from another sweep (" + id.signature + ", " + std::to_string(id.points) +
                                   " points) than " + inputs.front() + " (" + signature + ", " +
                                   std::to_string(total) + " points)");
    }
    for (size_t k = HeaderLines(f); k < lines.size(); ++k) {
      const long long p = PointOfRow(lines[k], f);
      if (p < 0 || p >= total)
        throw InputError(Location{path, int(k + 1), 0}, "", "is not a row of this sweep");
      if (!id.shard.Has(p))
        throw InputError(Location{path, int(k + 1), 0}, "",
                         fmt::format("point {} is not in the shard {}/{} the file's first line names: the file was "
                                     "edited or rows of two shards were joined",
                                     p, id.shard.index, id.shard.count));
      if (const std::string problem = RowProblem(lines[k], f); !problem.empty())
        throw InputError(Location{path, int(k + 1), 0}, "", "point " + std::to_string(p) + " " + problem +
                                                                ": the file was edited or damaged");
      if (!rows.emplace(p, lines[k]).second)
        throw InputError(Location{path, int(k + 1), 0}, "", "point " + std::to_string(p) + " is given twice");
    }
  }
  std::vector<long long> missing;
  for (long long p = 0; p < total && missing.size() < 10; ++p)
    if (!rows.count(p)) missing.push_back(p);
  if (!missing.empty()) {
    std::string list;
    for (long long p : missing) list += (list.empty() ? "" : ", ") + std::to_string(p);
    throw InputError(Location{"merge", 0, 0}, "",
                     fmt::format("{} of {} points are missing (first: {}): a shard file is missing or incomplete",
                                 total - static_cast<long long>(rows.size()), total, list));
  }
  // The whole sweep's header: the first shard's, as shard 0 of 1.
  std::string head;
  if (format == SweepFormat::kCsv) {
    head = fmt::format("# preflight sweep {} points={} shard=0/1\n", signature, total) + columns;
  } else {
    bool truncated = false;
    nlohmann::json first = nlohmann::json::parse(Lines(inputs.front(), truncated).front(), nullptr, false);
    first["shard"] = "0/1";
    head = first.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::string text = head;
  for (const auto& [_, row] : rows) text += row;
  if (const int err = WriteFileAtomically(output, text))
    throw InputError(Location{"-o " + output, 0, 0}, "", "cannot write: " + WriteErrorReason(err));
  return total;
}

}  // namespace pf
