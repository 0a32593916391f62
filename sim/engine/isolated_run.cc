#include "sim/engine/isolated_run.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "sim/base/io.h"
#include "sim/engine/runner.h"

namespace pf {

namespace {

using preflight::RunAnswer;
using preflight::RunError;

// Set by the first in-process run. SimGrid 3.32 keeps its engine's state for
// the rest of the process: a second engine in this process, or in a child
// forked from it, aborts ("Cannot change the model after the
// initialization"). Later runs throw instead.
bool simgrid_ran_here = false;

bool InProcessRequested() {
  const char* v = std::getenv(kInProcessEnv);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

RunAnswer ErrorAnswer(RunError::Kind kind, const std::string& message) {
  RunAnswer a;
  a.mutable_error()->set_kind(kind);
  a.mutable_error()->set_message(message);
  return a;
}

// Everything readable from `fd` until end of file (or a read error).
std::string ReadAll(int fd) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t k = read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return out;
    out.append(buf, static_cast<size_t>(k));
  }
}

// Waits for child `pid` (retrying when a signal interrupts) and stores how it
// ended in `wstatus`. Returns 0, or waitpid's errno (ECHILD when SIGCHLD is
// ignored and the child was reaped already).
int WaitFor(pid_t pid, int* wstatus) {
  while (waitpid(pid, wstatus, 0) < 0)
    if (errno != EINTR) return errno;
  return 0;
}

// The child's side: sends `answer()` down `fd` and exits without running the
// parent's atexit handlers or flushing its copies of the stdio buffers.
// Exit status 0 when the whole answer was written, 3 otherwise.
[[noreturn]] void AnswerAndExit(int fd, const std::function<RunAnswer()>& answer) {
  std::string bytes;
  const bool sent = answer().SerializeToString(&bytes) && WriteAll(fd, bytes);
  close(fd);
  _exit(sent ? 0 : 3);
}

// The parent's reading of what the child sent (`bytes`) and how it ended
// (`wstatus`, or `wait_error` when it could not be waited for).
RunAnswer ReadAnswer(const std::string& bytes, int wstatus, int wait_error) {
  if (wait_error == 0 && WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    return ErrorAnswer(RunError::INTERNAL, "the SimGrid run was killed by signal " + std::to_string(sig) +
                                               " (" + strsignal(sig) + ")");
  }
  const int code = wait_error == 0 && WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
  if (code != 0 || bytes.empty()) {
    const std::string how = wait_error == 0
                                ? "exited with status " + std::to_string(code)
                                : std::string("ended (waitpid: ") + std::strerror(wait_error) + ")";
    return ErrorAnswer(RunError::INTERNAL, "the SimGrid run " + how + " without an answer");
  }
  RunAnswer a;
  if (!a.ParseFromString(bytes))
    return ErrorAnswer(RunError::INTERNAL, "the SimGrid run sent " + std::to_string(bytes.size()) +
                                               " bytes that are not a preflight.RunAnswer");
  return a;
}

// Throws std::runtime_error unless every value of `times` is finite.
template <typename Doubles>
void CheckFinite(const char* what, const Doubles& times) {
  for (int i = 0; i < times.size(); ++i)
    if (!std::isfinite(times[i]))
      throw std::runtime_error("the SimGrid run answered " + std::string(what) + " time " +
                               std::to_string(times[i]) + " for task " + std::to_string(i));
}

}  // namespace

RunAnswer AnswerOf(const std::function<TaskTimes()>& run) {
  try {
    TaskTimes t = run();
    RunAnswer a;
    preflight::RunTimes* out = a.mutable_times();
    out->mutable_start_s()->Add(t.start_s.begin(), t.start_s.end());
    out->mutable_end_s()->Add(t.end_s.begin(), t.end_s.end());
    out->set_makespan_s(t.makespan_s);
    out->set_flows(t.flows);
    return a;
  } catch (const std::invalid_argument& e) {
    return ErrorAnswer(RunError::BAD_INPUT, e.what());
  } catch (const std::exception& e) {
    return ErrorAnswer(RunError::INTERNAL, e.what());
  } catch (...) {
    return ErrorAnswer(RunError::INTERNAL, "the SimGrid run threw a non-standard exception");
  }
}

RunAnswer AnswerFromChild(const std::function<RunAnswer()>& answer) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe() failed: ") + std::strerror(errno));
  std::fflush(nullptr);  // or the child's copies of the stdio buffers print twice
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("fork() failed: ") + std::strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
    AnswerAndExit(fds[1], answer);
  }
  close(fds[1]);
  const std::string bytes = ReadAll(fds[0]);
  close(fds[0]);  // before waiting: a child still writing gets SIGPIPE, not a deadlock
  int wstatus = 0;
  const int wait_error = WaitFor(pid, &wstatus);
  return ReadAnswer(bytes, wstatus, wait_error);
}

TaskTimes TimesFromAnswer(const RunAnswer& a, int tasks) {
  if (a.has_error()) {
    if (a.error().kind() == RunError::BAD_INPUT) throw std::invalid_argument(a.error().message());
    throw std::runtime_error(a.error().message());
  }
  if (!a.has_times()) throw std::runtime_error("the SimGrid run answered neither task times nor an error");
  const preflight::RunTimes& t = a.times();
  if (t.start_s_size() != tasks || t.end_s_size() != tasks)
    throw std::runtime_error("the SimGrid run answered " + std::to_string(t.start_s_size()) + " start and " +
                             std::to_string(t.end_s_size()) + " end times for a workload of " +
                             std::to_string(tasks) + " tasks");
  CheckFinite("start", t.start_s());
  CheckFinite("end", t.end_s());
  if (!std::isfinite(t.makespan_s()))
    throw std::runtime_error("the SimGrid run answered makespan " + std::to_string(t.makespan_s()));
  if (t.flows() < 0)
    throw std::runtime_error("the SimGrid run answered " + std::to_string(t.flows()) + " flows");
  TaskTimes out;
  out.start_s.assign(t.start_s().begin(), t.start_s().end());
  out.end_s.assign(t.end_s().begin(), t.end_s().end());
  out.makespan_s = t.makespan_s();
  out.flows = t.flows();
  return out;
}

TaskTimes RunWorkload(const Scenario& s, const preflight::Workload& w) {
  if (static_cast<int>(w.gpus()) != s.cluster.gpus())
    throw std::invalid_argument("workload was built for " + std::to_string(w.gpus()) +
                                " GPUs but the scenario's cluster has " + std::to_string(s.cluster.gpus()));
  if (simgrid_ran_here)
    throw std::runtime_error(std::string(kInProcessEnv) +
                             "=1: this process has already run SimGrid once, and SimGrid 3.32 allows one "
                             "engine per process; simulate one workload per process in this mode, or unset " +
                             kInProcessEnv + " to run each simulation in a child process");
  auto run = [&] { return RunOnSimGrid(s, w); };
  if (InProcessRequested()) {
    simgrid_ran_here = true;
    return TimesFromAnswer(AnswerOf(run), w.tasks_size());
  }
  // A fresh SimGrid in a child process per run, so that one program (tests,
  // sweeps, benchmarks) can simulate many workloads.
  return TimesFromAnswer(AnswerFromChild([&] { return AnswerOf(run); }), w.tasks_size());
}

}  // namespace pf
