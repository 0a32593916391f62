#include "sim/workload/workload_builder.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>

#include "sim/model/compute_model.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/workload/schedule_1f1b.h"

namespace pf {
namespace {

// PyTorch DDP's default gradient bucket (bucket_cap_mb = 25).
constexpr double kBucketBytes = 25e6;
// Gradients and gathered parameters travel in bf16/fp16.
constexpr double kCommBytesPerParam = 2;

using preflight::Category;
using preflight::Task;

// Seconds and executed FLOPs of a list of kernels.
struct Work {
  double seconds = 0;
  double flops = 0;
};
Work Measure(const std::vector<Op>& ops, const Scenario& s) {
  Work w;
  for (const Op& op : ops) {
    w.seconds += OpTime(op, s.cluster.node.gpu, s.training.precision).value();
    w.flops += op.flops.value();
  }
  return w;
}
Work operator*(Work w, double k) { return {w.seconds * k, w.flops * k}; }
Work operator+(Work a, Work b) { return {a.seconds + b.seconds, a.flops + b.flops}; }

class GraphBuilder {
 public:
  explicit GraphBuilder(const Scenario& s) : s_(s), p_(s.parallel) {}

  preflight::Workload Build();

 private:
  // Task ids that connect stages. Per virtual stage, DP rank and
  // micro-batch: the task whose end releases the next virtual stage (out) and
  // the first task that needs it (in). Per stage and DP rank: the end of its
  // backward work and its optimizer step.
  using PerMicroBatch = std::vector<std::vector<std::vector<int>>>;
  struct Links {
    PerMicroBatch fwd_out, bwd_out, fwd_in, bwd_in;
    std::vector<std::vector<int>> stage_end, stage_opt;
  };
  // Compute, TP and DP tasks of pipeline stage `st` (all its DP ranks).
  void BuildStage(int st, int M, double hidden_bytes, Links& links);
  struct StageCost {
    int layers = 0;
    Work fwd, bwd;          // one micro-batch, whole stage, incl. recompute in bwd
    Work fwd_layer, bwd_layer;
    int tp_fwd = 0, tp_bwd = 0;  // TP all-reduces per micro-batch
    double params = 0;           // trainable parameters per TP rank
    double weights = 0;          // all parameters per TP rank
    double layer_weights = 0;    // one layer's parameters per TP rank
  };
  // One virtual pipeline stage (model chunk): vstage = chunk x pp + stage.
  StageCost Cost(int vstage) const;

  int Add(Task t) {
    tasks_.push_back(std::move(t));
    return static_cast<int>(tasks_.size()) - 1;
  }
  void Dep(int task, int dep) {
    if (dep >= 0) tasks_[task].add_deps(dep);
  }
  int Compute(int gpu, std::string name, Work w, Category c = preflight::COMPUTE);
  int Collective(std::string name, Category c, preflight::CollectiveKind kind,
                 std::vector<int> gpus, double bytes, int count, int lanes);
  int Transfer(std::string name, int src, int dst, double bytes);
  std::vector<int> TpGroup(int d, int stage) const;
  std::vector<int> DpGroup(int stage) const;

  const Scenario& s_;
  const ParallelSpec& p_;
  std::vector<Task> tasks_;
};

int GraphBuilder::Compute(int gpu, std::string name, Work w, Category c) {
  Task t;
  t.set_name(std::move(name));
  t.set_category(c);
  auto* x = t.mutable_compute();
  x->set_gpu(gpu);
  x->set_duration_s(w.seconds);
  x->set_flops(w.flops);
  return Add(std::move(t));
}

int GraphBuilder::Collective(std::string name, Category c, preflight::CollectiveKind kind,
                             std::vector<int> gpus, double bytes, int count, int lanes) {
  Task t;
  t.set_name(std::move(name));
  t.set_category(c);
  auto* x = t.mutable_collective();
  x->set_kind(kind);
  for (int g : gpus) x->add_gpus(g);
  x->set_size_bytes(bytes);
  x->set_count(count);
  x->set_lanes(lanes);
  x->set_lane_stride(1);
  return Add(std::move(t));
}

int GraphBuilder::Transfer(std::string name, int src, int dst, double bytes) {
  Task t;
  t.set_name(std::move(name));
  t.set_category(preflight::PP_COMM);
  auto* x = t.mutable_transfer();
  x->set_src_gpu(src);
  x->set_dst_gpu(dst);
  x->set_size_bytes(bytes);
  x->set_lanes(p_.tp);
  x->set_lane_stride(1);
  return Add(std::move(t));
}

std::vector<int> GraphBuilder::TpGroup(int d, int stage) const {
  std::vector<int> g;
  for (int t = 0; t < p_.tp; ++t) g.push_back(GpuIndex(p_, t, d, stage));
  return g;
}

std::vector<int> GraphBuilder::DpGroup(int stage) const {
  std::vector<int> g;
  for (int d = 0; d < p_.dp; ++d) g.push_back(GpuIndex(p_, 0, d, stage));
  return g;
}

GraphBuilder::StageCost GraphBuilder::Cost(int vstage) const {
  const ModelSpec& m = s_.model;
  const TrainingSpec& t = s_.training;
  const bool frozen = t.method != Method::kFull;
  const int vstages = p_.pp * p_.vp;
  const bool first = vstage == 0, last = vstage == vstages - 1;
  StageCost c;
  c.layers = m.layers / vstages;
  std::vector<Op> fwd_ops = LayerOps(m, t, p_.tp, Pass::kForward, frozen);
  c.fwd_layer = Measure(fwd_ops, s_);
  c.bwd_layer = Measure(LayerOps(m, t, p_.tp, Pass::kBackward, frozen), s_);
  if (t.recompute == Recompute::kFull) {
    c.bwd_layer = c.bwd_layer + c.fwd_layer;
  } else if (t.recompute == Recompute::kSelective) {
    std::vector<Op> attention;
    for (const Op& op : fwd_ops)
      if (op.kind == OpKind::kAttention || op.name == "attn_scores" ||
          op.name == "attn_values" || op.name == "softmax_dropout")
        attention.push_back(op);
    c.bwd_layer = c.bwd_layer + Measure(attention, s_);
  }
  c.fwd = c.fwd_layer * c.layers;
  c.bwd = c.bwd_layer * c.layers;
  const ParamCount pc = CountParams(m);
  c.layer_weights = pc.per_layer / p_.tp;
  c.weights = c.layer_weights * c.layers;
  if (first) {
    c.fwd = c.fwd + Measure(EmbeddingOps(m, t, p_.tp, Pass::kForward), s_);
    c.bwd = c.bwd + Measure(EmbeddingOps(m, t, p_.tp, Pass::kBackward), s_);
    c.weights += pc.embedding / p_.tp;
  }
  if (last) {
    c.fwd = c.fwd + Measure(HeadOps(m, t, p_.tp, Pass::kForward, frozen), s_);
    c.bwd = c.bwd + Measure(HeadOps(m, t, p_.tp, Pass::kBackward, frozen), s_);
    c.weights += (m.tied_embeddings && p_.pp > 1 ? pc.embedding : pc.lm_head) / p_.tp;
  }
  c.params = frozen ? TrainableParams(s_) / vstages / p_.tp : c.weights;
  if (p_.tp > 1) {
    // Megatron: an all-reduce after attention and after the MLP, forward and
    // backward (the f/g operators); recompute repeats the forward ones; the
    // vocabulary-parallel embedding adds one on the first stage and the LM
    // head one in backward on the last.
    c.tp_fwd = 2 * c.layers + (first ? 1 : 0);
    c.tp_bwd = 2 * c.layers + (t.recompute == Recompute::kFull ? 2 * c.layers : 0) +
               (last ? 1 : 0);  // the column-parallel LM head's input gradient
  }
  return c;
}

void GraphBuilder::BuildStage(int st, int M, double hidden_bytes, Links& links) {
  const TrainingSpec& t = s_.training;
  const bool zero3 = p_.zero == 3 && p_.dp > 1;
  const int V = p_.vp;
  auto& [fwd_out, bwd_out, fwd_in, bwd_in, stage_end, stage_opt] = links;
  std::vector<StageCost> chunk(V);  // the model chunks this stage holds
  double stage_params = 0;
  for (int k = 0; k < V; ++k) {
    chunk[k] = Cost(k * p_.pp + st);
    stage_params += chunk[k].params;
  }
  const StageCost& c = chunk[0];  // ZeRO-3 implies pp = vp = 1
  const std::vector<int> dp_group = DpGroup(st);
  const bool reduce = p_.dp > 1;
  // Segments: ZeRO-3 gathers per layer; DP buckets split the backward that
  // completes a chunk's gradients so their reduction overlaps it.
  auto grad_bytes = [&](int k) { return chunk[k].params * kCommBytesPerParam; };
  auto buckets = [&](int k) {
    return std::max(1, std::min(chunk[k].layers, int(std::ceil(grad_bytes(k) / kBucketBytes))));
  };
  auto reduces_in = [&](int mb) {
    if (!reduce || zero3) return false;
    if (p_.zero == 2) return true;
    return p_.dp_overlap && mb == M - 1;
  };
  const int fseg = zero3 ? c.layers : 1;
  auto bseg = [&](int k, int mb) { return zero3 ? c.layers : reduces_in(mb) ? buckets(k) : 1; };

  // Shared collectives of this stage (deps wired from every worker below).
  const auto dp_kind = p_.zero >= 1 ? preflight::REDUCE_SCATTER : preflight::ALL_REDUCE;
  std::vector<std::vector<int>> gather_f(M), gather_b(M);
  std::vector<std::vector<std::vector<int>>> scatter(V, std::vector<std::vector<int>>(M));
  std::vector<int> gather_chain;  // ZeRO-3 gathers in the order compute uses them
  if (zero3) {
    double layer_bytes = c.layer_weights * LayerWeightBytes(t.method);
    int prev_rs = -1;
    // All-gathers run one after another on their stream, in compute order.
    auto gather = [&](const char* name) {
      int g = Collective(name, preflight::DP_COMM, preflight::ALL_GATHER, dp_group, layer_bytes, 1, p_.tp);
      Dep(g, gather_chain.empty() ? -1 : gather_chain.back());
      gather_chain.push_back(g);
      return g;
    };
    for (int mb = 0; mb < M; ++mb) {
      for (int j = 0; j < c.layers; ++j) gather_f[mb].push_back(gather("zero3_gather_fwd"));
      for (int j = 0; j < c.layers; ++j) {
        gather_b[mb].push_back(gather("zero3_gather_bwd"));
        scatter[0][mb].push_back(Collective("zero3_reduce_scatter", preflight::DP_COMM,
                                            preflight::REDUCE_SCATTER, dp_group,
                                            c.params / c.layers * kCommBytesPerParam, 1, p_.tp));
        Dep(scatter[0][mb].back(), prev_rs);
        prev_rs = scatter[0][mb].back();
      }
    }
  } else {
    for (int k = 0; k < V; ++k)
      for (int mb = 0; mb < M; ++mb)
        if (reduces_in(mb))
          for (int b = 0; b < buckets(k); ++b)
            scatter[k][mb].push_back(Collective("dp_grad_bucket", preflight::DP_COMM, dp_kind,
                                                dp_group, grad_bytes(k) / buckets(k), 1, p_.tp));
  }
  int late_reduce = -1;  // reduction after the pipeline flush (no overlap)
  if (reduce && !zero3 && p_.zero < 2 && !p_.dp_overlap)
    late_reduce = Collective("dp_grad_reduce", preflight::DP_COMM, dp_kind, dp_group,
                             stage_params * kCommBytesPerParam, 1, p_.tp);

  std::vector<int> optimizers;
  for (int d = 0; d < p_.dp; ++d) {
    const int gpu = GpuIndex(p_, 0, d, st);
    const std::vector<int> tp_group = TpGroup(d, st);
    int last = -1;  // the previous blocking task on this GPU
    size_t segment = 0;  // compute segments so far, in gather_chain order
    for (const PipeOp& op : PipelineOrder(st, p_.pp, M, V)) {
      const int mb = op.micro_batch, k = op.chunk, vs = k * p_.pp + st;
      const StageCost& ck = chunk[k];
      const int segs = op.forward ? fseg : bseg(k, mb);
      const Work work = op.forward ? ck.fwd : ck.bwd;
      const int tp_count = op.forward ? ck.tp_fwd : ck.tp_bwd;
      const char* tag = op.forward ? "fwd" : "bwd";
      for (int j = 0; j < segs; ++j) {
        int task = Compute(gpu, tag, work * (1.0 / segs));
        Dep(task, last);
        if (j == 0) (op.forward ? fwd_in : bwd_in)[vs][d][mb] = task;
        if (zero3) {
          Dep(task, (op.forward ? gather_f : gather_b)[mb][j]);
          // One layer of prefetch (FSDP's default): the gather two layers
          // ahead waits until this layer's compute is done.
          if (segment + 2 < gather_chain.size()) Dep(gather_chain[segment + 2], task);
          ++segment;
        }
        last = task;
        const int tp_here = tp_count / segs + (j < tp_count % segs ? 1 : 0);
        if (tp_here > 0) {
          int tp = Collective(std::string("tp_") + tag, preflight::TP_COMM,
                              preflight::ALL_REDUCE, tp_group, hidden_bytes, tp_here, 1);
          Dep(tp, task);
          last = tp;
        }
        if (!op.forward && !scatter[k][mb].empty()) Dep(scatter[k][mb][j], last);
      }
      (op.forward ? fwd_out : bwd_out)[vs][d][mb] = last;
    }
    if (late_reduce >= 0) Dep(late_reduce, last);
    Work opt{OptimizerTime(stage_params / (p_.zero >= 1 ? p_.dp : 1), s_.cluster.node.gpu).value(), 0};
    int o = Compute(gpu, "optimizer", opt, preflight::OPTIMIZER);
    Dep(o, last);
    Dep(o, late_reduce);
    for (const auto& per_chunk : scatter)
      for (const auto& mb_tasks : per_chunk)
        for (int x : mb_tasks) Dep(o, x);
    optimizers.push_back(o);
    stage_end[st][d] = last;
    stage_opt[st][d] = o;
  }
  if (reduce && (p_.zero == 1 || p_.zero == 2)) {
    int ag = Collective("zero_param_gather", preflight::DP_COMM, preflight::ALL_GATHER,
                        dp_group, stage_params * kCommBytesPerParam, 1, p_.tp);
    for (int o : optimizers) Dep(ag, o);
  }
}

preflight::Workload GraphBuilder::Build() {
  const TrainingSpec& t = s_.training;
  const int M = t.micro_batches_per_step(p_.dp);
  const double hidden_bytes = HiddenStateBytes(s_.model, t).value();
  const int S = p_.pp * p_.vp;
  Links links;
  for (auto* per_vstage : {&links.fwd_out, &links.bwd_out, &links.fwd_in, &links.bwd_in})
    per_vstage->assign(S, std::vector<std::vector<int>>(p_.dp, std::vector<int>(M, -1)));
  links.stage_end.assign(p_.pp, std::vector<int>(p_.dp, -1));
  links.stage_opt = links.stage_end;
  for (int st = 0; st < p_.pp; ++st) BuildStage(st, M, hidden_bytes, links);
  auto& [fwd_out, bwd_out, fwd_in, bwd_in, stage_end, stage_opt] = links;

  // Tied embeddings across a pipeline: the first and last stages hold a copy
  // each and all-reduce its gradient before the optimizer (Megatron-LM).
  if (s_.model.tied_embeddings && p_.pp > 1 && t.method == Method::kFull) {
    const double bytes = double(s_.model.vocab) * s_.model.hidden / p_.tp * kCommBytesPerParam;
    for (int d = 0; d < p_.dp; ++d) {
      int x = Collective("embedding_grad_sync", preflight::DP_COMM, preflight::ALL_REDUCE,
                         {GpuIndex(p_, 0, d, 0), GpuIndex(p_, 0, d, p_.pp - 1)}, bytes, 1, p_.tp);
      Dep(x, stage_end[0][d]);
      Dep(x, stage_end[p_.pp - 1][d]);
      Dep(stage_opt[0][d], x);
      Dep(stage_opt[p_.pp - 1][d], x);
    }
  }

  // Pipeline sends between consecutive virtual stages (the last stage's
  // chunk k feeds the first stage's chunk k + 1): activations forward,
  // gradients backward. Megatron's scatter-gather optimisation sends 1/tp of
  // the tensor per TP rank.
  for (int vs = 0; vs + 1 < S; ++vs)
    for (int d = 0; d < p_.dp; ++d)
      for (int mb = 0; mb < M; ++mb) {
        int src = GpuIndex(p_, 0, d, vs % p_.pp), dst = GpuIndex(p_, 0, d, (vs + 1) % p_.pp);
        int f = Transfer("pp_send_act", src, dst, hidden_bytes / p_.tp);
        Dep(f, fwd_out[vs][d][mb]);
        Dep(fwd_in[vs + 1][d][mb], f);
        int b = Transfer("pp_send_grad", dst, src, hidden_bytes / p_.tp);
        Dep(b, bwd_out[vs + 1][d][mb]);
        Dep(bwd_in[vs][d][mb], b);
      }

  // Topological order (Kahn); a cycle would be a bug in this builder.
  const int n = static_cast<int>(tasks_.size());
  std::vector<int> indegree(n), order, new_index(n, -1);
  std::vector<std::vector<int>> succ(n);
  for (int i = 0; i < n; ++i)
    for (int d : tasks_[i].deps()) succ[d].push_back(i), ++indegree[i];
  std::queue<int> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop();
    new_index[i] = static_cast<int>(order.size());
    order.push_back(i);
    for (int j : succ[i])
      if (--indegree[j] == 0) ready.push(j);
  }
  if (static_cast<int>(order.size()) != n)
    throw std::logic_error("workload builder produced a dependency cycle");

  preflight::Workload w;
  w.set_scenario(s_.name);
  w.set_gpus(s_.cluster.gpus());
  w.set_gpus_per_node(s_.cluster.node.gpus_per_node);
  w.set_tp(p_.tp);
  for (int st = 0; st < p_.pp; ++st)
    for (int d = 0; d < p_.dp; ++d) w.add_workers(GpuIndex(p_, 0, d, st));
  StepFlops flops = TrainingStepFlops(s_.model, t);
  w.set_model_flops(flops.model.value());
  w.set_hardware_flops(flops.hardware.value());
  w.set_tokens_per_step(t.tokens_per_step());
  for (int i : order) {
    Task* out = w.add_tasks();
    *out = std::move(tasks_[i]);
    for (int k = 0; k < out->deps_size(); ++k) out->set_deps(k, new_index[out->deps(k)]);
  }
  return w;
}

}  // namespace

int GpuIndex(const ParallelSpec& p, int t, int d, int stage) { return t + p.tp * (d + p.dp * stage); }

preflight::Workload BuildWorkload(const Scenario& s) { return GraphBuilder(s).Build(); }

}  // namespace pf
