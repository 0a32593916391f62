#include "sim/workload/workload_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "sim/base/error.h"
#include "sim/base/io.h"
#include "sim/proto/categories.h"
#include "sim/spec/names.h"

namespace pf {
namespace {

// Quoted text and numbers in messages are kept short and on one line.
constexpr size_t kShownChars = 80;

std::string Num(double x) { return ShortNumber(x); }
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
std::string Num(I x) {
  return std::to_string(x);
}

// `text` on one line (control characters as '?'), cut to ~80 characters
// at a UTF-8 character boundary.
std::string Shown(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == 0x7f) ? '?' : char(c);
  if (out.size() <= kShownChars) return out;
  size_t cut = kShownChars;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  return out.substr(0, cut) + "...";
}

bool In(double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; }

// One pass over a workload; each check throws at the first broken rule.
class Checker {
 public:
  Checker(const preflight::Workload& w, const Scenario& s, const std::string& file)
      : w_(w), s_(s), file_(file), gpus_(w.gpus()) {}

  void Run() {
    Header();  // from here on, gpus_ is the scenario's GPU count
    busy_s_.assign(gpus_, 0.0);
    Workers();
    Totals();
    Tasks();
    Budgets();
    Time();
  }

 private:
  [[noreturn]] void Fail(const std::string& key, const std::string& message) const {
    throw InputError({file_}, key, message);
  }
  [[noreturn]] void TaskFail(int i, const std::string& field, const std::string& message) const {
    const std::string& name = w_.tasks(i).name();
    Fail("tasks[" + Num(i) + "]" + field, message + (name.empty() ? "" : " (task \"" + Shown(name) + "\")"));
  }
  std::string GpuRange() const { return "(0.." + Num(gpus_ - 1) + ")"; }
  void CheckGpu(int i, const std::string& field, long long g) const {
    if (g < 0 || g >= gpus_) TaskFail(i, field, Num(g) + " is not a GPU index " + GpuRange());
  }

  void Header() const;
  void Workers() const;
  void Totals() const;
  void Tasks();
  void Task(int i);
  void Compute(int i, const preflight::Compute& c, preflight::Category category);
  void Collective(int i, const preflight::Collective& c);
  void Transfer(int i, const preflight::Transfer& x);
  void Io(int i, const preflight::Io& x);
  void Cpu(int i, const preflight::Cpu& x);
  void Bytes(int i, const std::string& field, double bytes, double count) const;
  void Lanes(int i, const std::string& kind, uint32_t lanes, uint32_t stride, long long top,
             long long width) const;
  void Budgets() const;
  void Time() const;

  const preflight::Workload& w_;
  const Scenario& s_;
  const std::string& file_;
  long long gpus_;
  std::vector<double> busy_s_;  // summed compute durations, by GPU
  double longest_compute_s_ = 0;
  long long deps_ = 0, activities_ = 0;
};

void Checker::Header() const {
  if (w_.schema_version() != kWorkloadSchemaVersion)
    Fail("schema_version", Num(w_.schema_version()) +
                               ", but this Preflight reads version " + Num(kWorkloadSchemaVersion) +
                               " (emit the workload again with --emit-workload)");
  const ClusterSpec& c = s_.cluster;
  const std::string precision = ToString(s_.training.precision);
  if (w_.gpus() == uint32_t(c.gpus()) && w_.gpus_per_node() == uint32_t(c.node.gpus_per_node) &&
      w_.gpu() == c.node.gpu.name && w_.precision() == precision)
    return;
  auto what = [](long long gpus, long long per_node, const std::string& gpu, const std::string& p) {
    return Num(gpus) + " x " + Shown(gpu) + " (" + Num(per_node) + " per node), " + Shown(p);
  };
  Fail("", "built for " + what(w_.gpus(), w_.gpus_per_node(), w_.gpu(), w_.precision()) +
               ", but the scenario has " + what(c.gpus(), c.node.gpus_per_node, c.node.gpu.name, precision) +
               " (emit a workload for this scenario with --emit-workload)");
}

void Checker::Workers() const {
  if (w_.workers_size() == 0) Fail("workers", "none listed; at least one GPU must carry the compute");
  std::vector<int> seen(gpus_, -1);
  for (int k = 0; k < w_.workers_size(); ++k) {
    const long long g = w_.workers(k);
    const std::string key = "workers[" + Num(k) + "]";
    if (g >= gpus_) Fail(key, Num(g) + " is not a GPU index " + GpuRange());
    if (seen[g] >= 0) Fail(key, "GPU " + Num(g) + " is listed twice (also workers[" + Num(seen[g]) + "])");
    seen[g] = k;
  }
  if (w_.tp() < 1) Fail("tp", "0; each worker stands for at least one GPU");
  const long long covered = (long long)w_.workers_size() * w_.tp();
  if (covered > gpus_)
    Fail("tp", Num(w_.workers_size()) + " workers x tp " + Num(w_.tp()) + " = " +
                   Num(covered) + " GPUs, more than the " + Num(gpus_) + " of the workload");
}

void Checker::Totals() const {
  for (auto [key, v] : {std::pair<const char*, double>{"model_flops", w_.model_flops()},
                        {"hardware_flops", w_.hardware_flops()}})
    if (!(std::isfinite(v) && v > 0)) Fail(key, Num(v) + " is not a positive finite FLOP count");
  if (w_.model_flops() > w_.hardware_flops())
    Fail("model_flops", Num(w_.model_flops()) + " exceeds hardware_flops (" + Num(w_.hardware_flops()) +
                            "), which include them");
  if (!In(w_.tokens_per_step(), 1, kMaxTokensPerStep))
    Fail("tokens_per_step", Num(w_.tokens_per_step()) + " is not a token count in [1, " +
                                Num(kMaxTokensPerStep) + "]");
}

void Checker::Tasks() {
  const int n = w_.tasks_size();
  if (n == 0) Fail("tasks", "none; a step needs at least one task");
  if (n > kMaxWorkloadTasks)
    Fail("tasks", Num(n) + " tasks; Preflight simulates up to " + Num(kMaxWorkloadTasks) +
                      " per workload (fewer micro-batches per step or fewer GPUs make fewer)");
  for (int i = 0; i < n; ++i) Task(i);
}

// What a task's category may be, by task kind.
bool Fits(preflight::Task::KindCase kind, preflight::Category c) {
  switch (kind) {
    case preflight::Task::kCompute: return c == preflight::COMPUTE || c == preflight::OPTIMIZER;
    case preflight::Task::kIo: return c == preflight::IO || c == preflight::DATA || c == preflight::OPTIMIZER;
    case preflight::Task::kCpu: return c == preflight::DATA || c == preflight::OPTIMIZER;
    default: return IsCommCategory(c);
  }
}

void Checker::Task(int i) {
  const preflight::Task& t = w_.tasks(i);
  const int c = t.category();
  if (!preflight::Category_IsValid(c) || c == preflight::CATEGORY_UNSPECIFIED)
    TaskFail(i, ".category",
             (c == 0 ? std::string("CATEGORY_UNSPECIFIED") : Num(c)) +
                 " is not a category (COMPUTE, OPTIMIZER, TP_COMM, PP_COMM, DP_COMM, IO, DATA, EP_COMM or CP_COMM)");
  static const char* const kAllowed[] = {"", "COMPUTE or OPTIMIZER", "TP_COMM, EP_COMM, CP_COMM, PP_COMM or DP_COMM",
                                         "TP_COMM, EP_COMM, CP_COMM, PP_COMM or DP_COMM", "IO, DATA or OPTIMIZER", "DATA or OPTIMIZER"};
  static const char* const kKind[] = {"", "a compute", "a collective", "a transfer", "an io", "a cpu"};
  if (t.kind_case() == preflight::Task::KIND_NOT_SET)
    TaskFail(i, "", "sets no task kind (compute, collective, transfer, io or cpu)");
  const int k = t.kind_case() - preflight::Task::kCompute + 1;
  if (!Fits(t.kind_case(), t.category()))
    TaskFail(i, ".category", preflight::Category_Name(t.category()) + " does not fit " + kKind[k] +
                                 " task (" + kAllowed[k] + ")");
  for (int j = 0; j < t.deps_size(); ++j)
    if (t.deps(j) >= uint32_t(i))
      TaskFail(i, ".deps[" + Num(j) + "]",
               Num(t.deps(j)) + " is not an earlier task" +
                   (i == 0 ? " (the first task can depend on none)" : " (0.." + Num(i - 1) + ")"));
  deps_ += t.deps_size();
  if (deps_ > kMaxWorkloadDeps)
    TaskFail(i, ".deps", Num(deps_) + " dependencies in all by this task; at most " + Num(kMaxWorkloadDeps) +
                             " are accepted");
  if (t.has_compute()) Compute(i, t.compute(), t.category());
  else if (t.has_collective()) Collective(i, t.collective());
  else if (t.has_transfer()) Transfer(i, t.transfer());
  else if (t.has_io()) Io(i, t.io());
  else Cpu(i, t.cpu());
}

void Checker::Compute(int i, const preflight::Compute& c, preflight::Category category) {
  CheckGpu(i, ".compute.gpu", c.gpu());
  if (!In(c.duration_s(), 0, kMaxTaskSeconds))
    TaskFail(i, ".compute.duration_s",
             Num(c.duration_s()) + " is not a duration in [0, " + Num(kMaxTaskSeconds) + "] s");
  if (!In(c.flops(), 0, HUGE_VAL))
    TaskFail(i, ".compute.flops", Num(c.flops()) + " is not a finite FLOP count >= 0");
  if (!In(c.host_wait_s(), 0, c.duration_s()))
    TaskFail(i, ".compute.host_wait_s",
             Num(c.host_wait_s()) + " is not a part of the task's duration_s (" + Num(c.duration_s()) + " s)");
  // The accounting counts a host wait as part of compute only.
  if (c.host_wait_s() > 0 && category != preflight::COMPUTE)
    TaskFail(i, ".compute.host_wait_s",
             Num(c.host_wait_s()) + " on " + preflight::Category_Name(category) +
                 " work: only COMPUTE tasks wait for the host (0 here)");
  busy_s_[c.gpu()] += c.duration_s();
  longest_compute_s_ = std::max(longest_compute_s_, c.duration_s());
  activities_ += 1;
}

void Checker::Bytes(int i, const std::string& field, double bytes, double count) const {
  if (!In(bytes, 0, kMaxTaskBytes))
    TaskFail(i, field, Num(bytes) + " is not a size in [0, " + Num(kMaxTaskBytes) + "] bytes");
  if (bytes * count > kMaxTaskBytes)
    TaskFail(i, field, Num(bytes) + " x count " + Num(count) + " = " + Num(bytes * count) +
                           " bytes; at most " + Num(kMaxTaskBytes) + " per task");
}

// Lanes `lanes` of stride `stride` over GPUs up to `top`, `width` GPUs per
// lane: every lane's GPUs exist and the lanes fit in the workload's GPUs.
void Checker::Lanes(int i, const std::string& kind, uint32_t lanes, uint32_t stride, long long top,
                    long long width) const {
  if (lanes < 1) TaskFail(i, kind + ".lanes", "0; must be at least 1");
  if (lanes > 1 && stride < 1)
    TaskFail(i, kind + ".lane_stride", "0 with " + Num(lanes) + " lanes; must be at least 1");
  const long long last = top + (long long)(lanes - 1) * stride;
  if (last >= gpus_)
    TaskFail(i, kind + ".lanes", Num(lanes) + " lanes of stride " + Num(stride) +
                                     " reach GPU " + Num(last) + ", beyond the workload's GPUs " + GpuRange());
  if (width * lanes > gpus_)
    TaskFail(i, kind + ".lanes", Num(width) + " GPUs x " + Num(lanes) + " lanes = " +
                                     Num(width * lanes) + " GPUs, more than the workload's " + Num(gpus_));
}

void Checker::Collective(int i, const preflight::Collective& c) {
  if (!preflight::CollectiveKind_IsValid(c.kind()))
    TaskFail(i, ".collective.kind", Num(c.kind()) +
                                        " is not a collective kind (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, "
                                        "BROADCAST or ALL_TO_ALL)");
  if (!preflight::Algorithm_IsValid(c.algorithm()))
    TaskFail(i, ".collective.algorithm", Num(c.algorithm()) +
                                             " is not an algorithm (ALGORITHM_AUTO, RING, TREE or NVLS)");
  const long long n = c.gpus_size();
  if (n == 0) TaskFail(i, ".collective.gpus", "none listed");
  if (n > gpus_)
    TaskFail(i, ".collective.gpus", Num(n) + " GPUs listed, more than the workload's " + Num(gpus_));
  std::vector<std::pair<uint32_t, int>> sorted;
  for (int k = 0; k < n; ++k) {
    CheckGpu(i, ".collective.gpus[" + Num(k) + "]", c.gpus(k));
    sorted.push_back({c.gpus(k), k});
  }
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k].first == sorted[k - 1].first)
      TaskFail(i, ".collective.gpus[" + Num(std::max(sorted[k].second, sorted[k - 1].second)) + "]",
               "GPU " + Num(sorted[k].first) + " is listed twice");
  if (c.count() < 1 || c.count() > kMaxCollectiveCount)
    TaskFail(i, ".collective.count",
             Num(c.count()) + " is not in [1, " + Num(kMaxCollectiveCount) + "]");
  Bytes(i, ".collective.size_bytes", c.size_bytes(), c.count());
  Lanes(i, ".collective", c.lanes(), c.lane_stride(), sorted.back().first, n);
  activities_ += (long long)c.lanes() * (n > 1 ? 2 * n : 0);
}

void Checker::Transfer(int i, const preflight::Transfer& x) {
  CheckGpu(i, ".transfer.src_gpu", x.src_gpu());
  CheckGpu(i, ".transfer.dst_gpu", x.dst_gpu());
  if (x.src_gpu() == x.dst_gpu())
    TaskFail(i, ".transfer.dst_gpu", Num(x.dst_gpu()) + " equals src_gpu; a transfer joins two GPUs");
  Bytes(i, ".transfer.size_bytes", x.size_bytes(), 1);
  Lanes(i, ".transfer", x.lanes(), x.lane_stride(), std::max(x.src_gpu(), x.dst_gpu()), 2);
  activities_ += x.lanes();
}

void Checker::Io(int i, const preflight::Io& x) {
  CheckGpu(i, ".io.gpu", x.gpu());
  if (!preflight::Io::Direction_IsValid(x.direction()))
    TaskFail(i, ".io.direction",
             Num(x.direction()) + " is not a direction (HOST_TO_DEVICE or DEVICE_TO_HOST)");
  Bytes(i, ".io.size_bytes", x.size_bytes(), 1);
  int servers = 0;
  for (const StorageTier& t : s_.cluster.storage)
    if (t.name == x.tier()) servers = t.shared() ? t.servers : 1;
  if (!x.tier().empty() && servers == 0) {
    std::string names;
    for (const StorageTier& t : s_.cluster.storage) names += (names.empty() ? "" : ", ") + t.name;
    TaskFail(i, ".io.tier", "\"" + Shown(x.tier()) + "\" is not a storage tier of this cluster (" +
                                (names.empty() ? std::string("it declares none") : "tiers: " + names) + ")");
  }
  if (x.requests() > kMaxIoRequests)
    TaskFail(i, ".io.requests", Num(x.requests()) + " is not in [0, " + Num(kMaxIoRequests) + "]");
  activities_ += 2 + 2 * servers;
}

void Checker::Cpu(int i, const preflight::Cpu& x) {
  const long long nodes = gpus_ / std::max<long long>(1, w_.gpus_per_node());
  if (x.node() >= nodes)
    TaskFail(i, ".cpu.node", Num(x.node()) + " is not a node index (0.." + Num(nodes - 1) + ")");
  if (!In(x.core_seconds(), 0, kMaxTaskSeconds))
    TaskFail(i, ".cpu.core_seconds",
             Num(x.core_seconds()) + " is not a duration in [0, " + Num(kMaxTaskSeconds) + "] s");
  if (x.threads() > kMaxCpuThreads)
    TaskFail(i, ".cpu.threads", Num(x.threads()) + " is not in [0, " + Num(kMaxCpuThreads) + "]");
  activities_ += std::max<uint32_t>(1, x.threads());
}

void Checker::Budgets() const {
  if (activities_ > kMaxWorkloadActivities)
    Fail("tasks", "about " + Num(activities_) + " network flows and kernels to simulate; at most " +
                      Num(kMaxWorkloadActivities) + " (fewer tasks, GPUs per collective or lanes make fewer)");
  // Tasks at one dependency depth (longest chain of deps before them) are
  // pairwise independent: nothing stops them all from running at once.
  const int n = w_.tasks_size();
  std::vector<int> depth(n, 0), width;
  for (int i = 0; i < n; ++i) {
    for (uint32_t d : w_.tasks(i).deps()) depth[i] = std::max(depth[i], depth[d] + 1);
    if (depth[i] >= int(width.size())) width.resize(depth[i] + 1, 0);
    ++width[depth[i]];
  }
  for (size_t d = 0; d < width.size(); ++d) {
    if (width[d] <= kMaxTasksAtOnce) continue;
    const std::string which = d == 0 ? " tasks have no dependency and would all start at once"
                                     : " tasks at dependency depth " + Num(d) + " can all run at once";
    Fail("tasks", Num(width[d]) + which + "; at most " + Num(kMaxTasksAtOnce) +
                      " may (SimGrid slows down with the square of tasks in flight): chain them with deps or "
                      "merge them");
  }
}

void Checker::Time() const {
  if (longest_compute_s_ < kMinStepSeconds)
    Fail("tasks", "no compute task lasts " + Num(kMinStepSeconds) + " s or more; the step would take no time");
  const double peak = PeakFlops(s_.cluster.node.gpu, s_.training.precision).value();
  const double busiest = *std::max_element(busy_s_.begin(), busy_s_.end());
  const double most = double(gpus_) * peak * busiest;
  if (w_.hardware_flops() > most)
    Fail("hardware_flops", Num(w_.hardware_flops()) + " is more than " + Num(gpus_) + " GPUs at " +
                               Num(peak) + " FLOP/s execute in " + Num(busiest) +
                               " s, the busiest GPU's compute time (" + Num(most) + ")");
}

}  // namespace

void ValidateWorkload(const preflight::Workload& w, const Scenario& s, const std::string& file) {
  Checker(w, s, file).Run();
}

}  // namespace pf
