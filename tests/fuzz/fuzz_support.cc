#include "tests/fuzz/fuzz_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <typeinfo>

#include <cxxabi.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// libFuzzer's 8-bit coverage counters: one section, bounded by these
// linker-made symbols when the binary is built with -fsanitize=fuzzer
// (inline-8bit-counters); null in the standalone build.
extern "C" {
__attribute__((weak)) extern uint8_t __start___sancov_cntrs[];
__attribute__((weak)) extern uint8_t __stop___sancov_cntrs[];
}

// Functions that must not bump the counters they copy (clang only; GCC has
// no coverage instrumentation here).
#if defined(__clang__)
#define PF_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#define PF_NO_ASAN_NO_COVERAGE __attribute__((no_sanitize("address", "coverage")))
#else
#define PF_NO_COVERAGE
#define PF_NO_ASAN_NO_COVERAGE __attribute__((no_sanitize("address")))
#endif

namespace pf::fuzz {

namespace {
void (*cleanup_before_abort)() = nullptr;
}  // namespace

void SetCleanup(void (*cleanup)()) { cleanup_before_abort = cleanup; }

void Finding(const std::string& what) {
  std::fprintf(stderr, "preflight fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  if (cleanup_before_abort) cleanup_before_abort();
  std::abort();
}

void UnexpectedException(const char* where) {
  std::string type = "a non-standard exception";
  if (const std::type_info* t = abi::__cxa_current_exception_type()) {
    int status = 0;
    char* name = abi::__cxa_demangle(t->name(), nullptr, nullptr, &status);
    type = status == 0 && name ? name : t->name();
    std::free(name);
  }
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    what = std::string(": ") + e.what();
  } catch (...) {
  }
  Finding("unexpected " + type + " from " + where + what);
}

void Note(const std::string& line) {
  static const bool verbose = [] {
    const char* v = std::getenv("PF_FUZZ_VERBOSE");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  if (verbose) std::fprintf(stderr, "  %s\n", line.c_str());
}

namespace {

std::string Num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// Finding unless lo <= x <= hi (NaN fails).
void InRange(const std::string& what, double x, double lo, double hi = HUGE_VAL) {
  if (!(x >= lo && x <= hi))
    Finding(what + " is " + Num(x) + ", outside [" + Num(lo) + ", " + Num(hi) + "]");
}

bool Close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b)) + 1e-12; }

void CheckGpu(const std::string& what, uint64_t gpu, int gpus) {
  if (gpu >= static_cast<uint64_t>(gpus))
    Finding(what + " is GPU " + std::to_string(gpu) + " of a " + std::to_string(gpus) + "-GPU workload");
}

}  // namespace

void CheckMemory(const MemoryBreakdown& m) {
  const std::pair<const char*, Bytes> parts[] = {
      {"weights", m.weights},         {"gradients", m.gradients}, {"optimizer", m.optimizer},
      {"activations", m.activations}, {"logits", m.logits},       {"zero_buffers", m.zero_buffers},
      {"cuda_context", m.cuda_context}, {"nccl_buffers", m.nccl_buffers}, {"allocator_reserve", m.allocator_reserve},
      {"ddp_buckets", m.ddp_buckets}, {"optimizer_step", m.optimizer_step}};
  double sum = 0;
  for (const auto& [name, b] : parts) {
    InRange(std::string("memory.") + name, b.value(), 0);
    sum += b.value();
  }
  // What the two phases never hold together is taken off, never more than
  // the terms the phases share out (memory_model.h phases_apart).
  const double apart_terms = (m.activations + m.logits + m.zero_buffers + m.gradients + m.optimizer_step).value();
  InRange("memory.phases_apart", m.phases_apart.value(), 0);
  if (m.phases_apart.value() > apart_terms * (1 + 1e-9))
    Finding("memory.phases_apart is " + Num(m.phases_apart.value()) + ", more than the " + Num(apart_terms) +
            " bytes of the terms it is taken from");
  sum -= m.phases_apart.value();
  InRange("memory.total", m.total.value(), 0);
  InRange("memory.capacity", m.capacity.value(), 1);
  if (!Close(m.framework.value(), (m.cuda_context + m.nccl_buffers + m.allocator_reserve).value()))
    Finding("memory.framework is " + Num(m.framework.value()) + ", not the sum of its three terms");
  if (!Close(sum, m.total.value()))
    Finding("memory.total is " + Num(m.total.value()) + " but its parts add up to " + Num(sum));
  if (m.fits != (m.total <= m.capacity))
    Finding(std::string("memory.fits is ") + (m.fits ? "true" : "false") + " for " + Num(m.total.value()) +
            " of " + Num(m.capacity.value()) + " bytes");
}

void CheckWorkload(const preflight::Workload& w, int gpus) {
  if (static_cast<int64_t>(w.gpus()) != gpus)
    Finding("workload.gpus is " + std::to_string(w.gpus()) + " for a " + std::to_string(gpus) + "-GPU cluster");
  InRange("workload.model_flops", w.model_flops(), 0);
  InRange("workload.hardware_flops", w.hardware_flops(), w.model_flops() * (1 - 1e-9));
  InRange("workload.tokens_per_step", w.tokens_per_step(), 1);
  if (w.tasks_size() == 0) Finding("the built workload has no tasks");
  for (int i = 0; i < w.tasks_size(); ++i) {
    const preflight::Task& t = w.tasks(i);
    const std::string at = "task " + std::to_string(i) + " (" + t.name() + ")";
    for (uint32_t d : t.deps())
      if (d >= static_cast<uint32_t>(i))
        Finding(at + " depends on task " + std::to_string(d) + ", which does not precede it");
    switch (t.kind_case()) {
      case preflight::Task::kCompute:
        CheckGpu(at + " compute.gpu", t.compute().gpu(), gpus);
        InRange(at + " compute.duration_s", t.compute().duration_s(), 0);
        InRange(at + " compute.flops", t.compute().flops(), 0);
        break;
      case preflight::Task::kCollective: {
        const preflight::Collective& c = t.collective();
        if (c.gpus_size() == 0) Finding(at + " is a collective over no GPUs");
        const uint64_t last_lane = c.lanes() > 1 ? uint64_t(c.lanes() - 1) * c.lane_stride() : 0;
        for (uint32_t g : c.gpus()) CheckGpu(at + " collective.gpus (last lane)", g + last_lane, gpus);
        InRange(at + " collective.size_bytes", c.size_bytes(), 0);
        break;
      }
      case preflight::Task::kTransfer: {
        const preflight::Transfer& x = t.transfer();
        const uint64_t last_lane = x.lanes() > 1 ? uint64_t(x.lanes() - 1) * x.lane_stride() : 0;
        CheckGpu(at + " transfer.src_gpu (last lane)", x.src_gpu() + last_lane, gpus);
        CheckGpu(at + " transfer.dst_gpu (last lane)", x.dst_gpu() + last_lane, gpus);
        InRange(at + " transfer.size_bytes", x.size_bytes(), 0);
        break;
      }
      case preflight::Task::kIo:
        CheckGpu(at + " io.gpu", t.io().gpu(), gpus);
        InRange(at + " io.size_bytes", t.io().size_bytes(), 0);
        break;
      case preflight::Task::kCpu:
        CheckGpu(at + " cpu.node (its first GPU)", int64_t(t.cpu().node()) * std::max<int64_t>(1, w.gpus_per_node()), gpus);
        InRange(at + " cpu.core_seconds", t.cpu().core_seconds(), 0);
        break;
      case preflight::Task::KIND_NOT_SET:
        Finding(at + " has no kind (compute, collective, transfer, io or cpu)");
    }
  }
}

void CheckResult(const Result& r, bool built) {
  CheckMemory(r.memory);
  for (const FitSuggestion& f : r.suggestions) InRange("suggestion \"" + f.change + "\" per_gpu", f.per_gpu.value(), 0);
  if (!r.step) return;
  const StepResult& st = *r.step;
  const double step = st.step_time.value();
  InRange("step_time", step, 0);
  if (!(step > 0)) Finding("step_time is " + Num(step));
  InRange("tokens_per_s", st.tokens_per_s, 0);
  InRange("mfu", st.mfu, 0, built ? 1 : HUGE_VAL);
  InRange("hfu", st.hfu, 0, built ? 1 : HUGE_VAL);
  const Breakdown& b = st.breakdown;
  const std::pair<const char*, Seconds> parts[] = {
      {"compute", b.compute}, {"optimizer", b.optimizer}, {"tp_comm", b.tp_comm}, {"pp_comm", b.pp_comm},
      {"dp_comm", b.dp_comm}, {"io", b.io},               {"bubble", b.bubble},   {"idle", b.idle}};
  for (const auto& [name, s] : parts) InRange(std::string("breakdown.") + name, s.value(), 0);
  InRange("scaling_efficiency", st.scaling_efficiency, 0, built ? 1 + 1e-9 : HUGE_VAL);
  if (built) {
    if (st.mfu > st.hfu * (1 + 1e-9)) Finding("mfu " + Num(st.mfu) + " exceeds hfu " + Num(st.hfu));
    if (!Close(b.total().value(), step))
      Finding("the breakdown adds up to " + Num(b.total().value()) + " s, the step takes " + Num(step) + " s");
  }
  InRange("steps", double(st.steps), 0);
  InRange("wall_clock", st.wall_clock.value(), 0);
  if (st.cost) InRange("cost", st.cost->value(), 0);
}

// ---- The SimGrid child processes -------------------------------------------

namespace {

// The child's coverage: the pages holding the counters are replaced, in the
// child only, by a shared mapping of a memfd that the parent also maps.
struct ChildCoverage {
  uintptr_t page_begin = 0, page_end = 0;
  int fd = -1;
  const uint8_t* parent_view = nullptr;
  bool child_ran = false;
};
ChildCoverage coverage;
long child_memory_limit_mb = 2048;

PF_NO_COVERAGE void SetUpChildCoverage() {
  uint8_t* begin = __start___sancov_cntrs;
  uint8_t* end = __stop___sancov_cntrs;
  if (begin == nullptr || end <= begin) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  coverage.page_begin = reinterpret_cast<uintptr_t>(begin) & ~(page - 1);
  coverage.page_end = (reinterpret_cast<uintptr_t>(end) + page - 1) & ~(page - 1);
  const size_t len = coverage.page_end - coverage.page_begin;
  const int fd = static_cast<int>(syscall(SYS_memfd_create, "pf-fuzz-child-coverage", 1u /*MFD_CLOEXEC*/));
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(len)) != 0) return;
  void* view = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  if (view == MAP_FAILED) return;
  coverage.fd = fd;
  coverage.parent_view = static_cast<const uint8_t*>(view);
}

// In the child, right after fork: copy the counter pages into the memfd (the
// kernel reads them, so no sanitizer looks at neighbouring globals' red
// zones) and map the memfd over them. Raw system calls only, so that no
// interceptor changes a global on those pages in between.
PF_NO_ASAN_NO_COVERAGE void ShareCountersWithParent() {
  if (coverage.fd < 0) return;
  const size_t len = coverage.page_end - coverage.page_begin;
  for (size_t done = 0; done < len;) {
    const long k = syscall(SYS_pwrite64, coverage.fd, reinterpret_cast<const char*>(coverage.page_begin) + done,
                           len - done, static_cast<long>(done));
    if (k <= 0) return;  // coverage of this run is lost; the run itself goes on
    done += static_cast<size_t>(k);
  }
  syscall(SYS_mmap, coverage.page_begin, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, coverage.fd, 0);
}

pid_t parent_pid = 0;

void InChild() {
  ShareCountersWithParent();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent_pid) _exit(1);  // the parent died before prctl
  LimitMemoryGrowth(child_memory_limit_mb);
}

void BeforeFork() {
  MergeChildCoverage();  // a previous child's counters, before the next one overwrites them
  parent_pid = getpid();
}

void InParent() { coverage.child_ran = true; }

}  // namespace

// RLIMIT_DATA rather than RLIMIT_AS: ASan reserves terabytes of address
// space up front, and its heap grows inside that reservation; RLIMIT_DATA
// counts what becomes writable.
void LimitMemoryGrowth(long mb) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return;
  char line[256];
  unsigned long long data_kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmData: %llu kB", &data_kb) == 1) break;
  std::fclose(f);
  if (data_kb == 0 || mb <= 0) return;
  // The soft limit only: a child forked later may set its own above ours.
  struct rlimit rl;
  if (getrlimit(RLIMIT_DATA, &rl) != 0) return;
  rl.rlim_cur = (data_kb + static_cast<unsigned long long>(mb) * 1024) * 1024;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max) rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_DATA, &rl);
}

void GuardSimGridChildren() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* mb = std::getenv("PF_FUZZ_CHILD_MEMORY_MB")) child_memory_limit_mb = std::atol(mb);
    const char* cov = std::getenv("PF_FUZZ_CHILD_COVERAGE");
    // Opt-in: mapping shared pages over the counters in the child crashed
    // the scenario target's first SimGrid child on a fresh CI clone (SIGBUS
    // in the fork handler), so the default runs without it.
    if (cov != nullptr && std::strcmp(cov, "1") == 0) SetUpChildCoverage();
    pthread_atfork(BeforeFork, InParent, InChild);
  });
}

PF_NO_COVERAGE void MergeChildCoverage() {
  if (coverage.parent_view == nullptr || !coverage.child_ran) return;
  coverage.child_ran = false;
  uint8_t* begin = __start___sancov_cntrs;
  uint8_t* end = __stop___sancov_cntrs;
  const uint8_t* child = coverage.parent_view + (reinterpret_cast<uintptr_t>(begin) - coverage.page_begin);
  for (uint8_t* p = begin; p < end; ++p, ++child)
    if (*child > *p) *p = *child;
}

}  // namespace pf::fuzz
