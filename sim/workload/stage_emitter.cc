#include "sim/workload/stage_emitter.h"

#include "sim/workload/context_exchange.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/expert_parallel.h"
#include "sim/workload/rank_layout.h"
#include "sim/workload/schedule_1f1b.h"
#include "sim/workload/stage_cost.h"

namespace pf {

PipelineLinks::PipelineLinks(const ParallelSpec& p, int micro_batches) {
  const int vstages = p.pp * p.vp;
  for (auto* per_vstage : {&fwd_out, &bwd_out, &fwd_in, &bwd_in, &before_fwd})
    per_vstage->assign(vstages, std::vector<std::vector<int>>(p.dp, std::vector<int>(micro_batches, kNoTask)));
  stage_end.assign(p.pp, std::vector<int>(p.dp, kNoTask));
  stage_opt = stage_end;
  flush_reduce.assign(p.pp, kNoTask);
}

namespace {

// One DP rank's worker on one stage: its ops in pipeline order.
class Worker {
 public:
  Worker(TaskGraph& g, const Scenario& s, int stage, int d, const std::vector<StageCost>& chunks,
         DataParallelEmitter& dp, ExpertExchange& ep, ContextExchange& cp, Bytes hidden, PipelineLinks& links)
      : g_(g), p_(s.parallel), stage_(stage), d_(d), gpu_(GpuIndex(s.parallel, 0, d, stage)),
        tp_group_(TpGroup(s.parallel, d, stage)), chunks_(chunks), dp_(dp), ep_(ep), cp_(cp), hidden_(hidden),
        links_(links) {}

  // Emits every op, then the optimizer; returns the optimizer task.
  int Run(int micro_batches) {
    const std::vector<PipeOp> order = PipelineOrder(stage_, p_.pp, micro_batches, p_.vp);
    for (size_t i = 0; i < order.size(); ++i) {
      if (p_.ep_overlap && i + 1 < order.size() && Pairs(order[i], order[i + 1])) {
        EmitTogether(order[i], order[i + 1]);
        ++i;
      } else {
        Emit(order[i]);
      }
    }
    int o = dp_.Optimizer(gpu_, d_, last_);
    links_.stage_end[stage_][d_] = last_;
    links_.stage_opt[stage_][d_] = o;
    return o;
  }

 private:
  // Megatron-Core's combined 1F1B (parallel.ep_overlap): a forward and a
  // backward next to each other in the schedule, of different micro-batches
  // or chunks, run as one: neither waits for the other, so each one's
  // all-to-alls run beside the other's compute.
  static bool Pairs(const PipeOp& a, const PipeOp& b) {
    return a.forward != b.forward && (a.micro_batch != b.micro_batch || a.chunk != b.chunk);
  }
  void EmitTogether(const PipeOp& a, const PipeOp& b) {
    const int start = last_;
    Emit(a);
    const int a_end = last_;
    last_ = start;
    Emit(b);
    const int join = g_.Compute(gpu_, "ep_overlap_join", Work{});
    g_.Dep(join, a_end);
    g_.Dep(join, last_);
    last_ = join;
  }

  // How many of an op's collectives of each kind follow one piece of it.
  struct Counts {
    int tp = 0, cp = 0, ep = 0;
    // Part i of n, the remainders going to the first parts.
    Counts Share(int n, int i) const {
      auto part = [n, i](int x) { return x / n + (i < x % n ? 1 : 0); };
      return {part(tp), part(cp), part(ep)};
    }
  };

  // One forward or backward of a chunk for a micro-batch, cut into the DP
  // emitter's segments (a gradient bucket's share of a backward, say) and,
  // under EP overlap, each segment into a piece per MoE layer, so that the
  // all-to-alls run layer by layer beside the paired pass's compute; each
  // piece is followed by its share of the op's TP, CP and EP collectives.
  void Emit(const PipeOp& op) {
    const int mb = op.micro_batch, k = op.chunk, vs = k * p_.pp + stage_;
    const StageCost& c = chunks_[k];
    const int segs = dp_.Segments(op.forward, k, mb);
    const Work work = op.forward ? c.fwd : c.bwd;
    const Counts all{op.forward ? c.tp_fwd : c.tp_bwd, op.forward ? c.cp_fwd : c.cp_bwd,
                     op.forward ? c.ep_fwd : c.ep_bwd};
    int unit = 0;  // pieces of this op so far
    const int start = last_;
    for (int j = 0; j < segs; ++j) {
      const Counts segment = all.Share(segs, j);
      const int pieces = p_.ep_overlap && segment.ep > 2 ? (segment.ep + 1) / 2 : 1;
      for (int q = 0; q < pieces; ++q, ++unit) {
        const int before = last_;
        const int task = g_.Compute(gpu_, op.forward ? "fwd" : "bwd", work * (1.0 / (segs * pieces)));
        g_.Dep(task, last_);
        if (j == 0 && q == 0) (op.forward ? links_.fwd_in : links_.bwd_in)[vs][d_][mb] = task;
        if (j == 0 && q == 0 && op.forward) links_.before_fwd[vs][d_][mb] = last_;
        if (q == 0) dp_.BeforeSegment(task, d_, op.forward, k, mb, j, segment_++);
        last_ = task;
        Collectives(op, c, before, task, segment.Share(pieces, q), unit);
      }
      dp_.AfterSegment(last_, d_, op.forward, k, mb, j);
    }
    if (c.offload_bytes.value() > 0) Offload(op.forward, c.offload_bytes, start);
    (op.forward ? links_.fwd_out : links_.bwd_out)[vs][d_][mb] = last_;
  }

  // torchtune's activation offloading: the forward's checkpoints copied to
  // the host on a side stream as the forward saves them, and brought back
  // for the backward a layer ahead of it, over the GPU's PCIe link beside
  // the pass's compute; the pass ends when both have.
  void Offload(bool forward, Bytes bytes, int start) {
    const int copy = g_.Io(forward ? "activations_to_host" : "activations_from_host", gpu_,
                           forward ? preflight::Io::DEVICE_TO_HOST : preflight::Io::HOST_TO_DEVICE, bytes);
    g_.Dep(copy, start);
    const int join = g_.Compute(gpu_, "offload_join", Work{});
    g_.Dep(join, last_);
    g_.Dep(join, copy);
    last_ = join;
  }

  // The collectives after compute `task` (whose predecessor was `before`):
  // TP's all-reduces, or sequence parallelism's reduce-scatters and
  // all-gathers; ring attention's K/V exchange; the experts' all-to-alls.
  // `unit` numbers the op's pieces, as its CP and EP groups key them.
  void Collectives(const PipeOp& op, const StageCost& c, int before, int task, Counts n, int unit) {
    const int mb = op.micro_batch, k = op.chunk;
    const char* tag = op.forward ? "fwd" : "bwd";
    if (n.tp > 0 && !p_.sp) {
      int tp = g_.Collective(std::string("tp_") + tag, preflight::TP_COMM, preflight::ALL_REDUCE, tp_group_, hidden_,
                             n.tp, 1);
      g_.Dep(tp, task);
      last_ = tp;
    } else if (n.tp > 0) {  // sequence parallel: the same bytes as reduce-scatter + all-gather
      // With TP overlap (Megatron --tp-comm-overlap, TE userbuffers) they
      // run beside the piece's GEMMs instead of after them, and the piece
      // ends when both have.
      int prev = p_.tp_overlap ? before : last_;
      for (auto kind : {preflight::REDUCE_SCATTER, preflight::ALL_GATHER}) {
        int x = g_.Collective(std::string(kind == preflight::ALL_GATHER ? "sp_gather_" : "sp_scatter_") + tag,
                              preflight::TP_COMM, kind, tp_group_, hidden_, n.tp, 1);
        g_.Dep(x, prev);
        prev = x;
      }
      if (p_.tp_overlap) {
        last_ = g_.Compute(gpu_, "tp_overlap_join", Work{});
        g_.Dep(last_, task);
        g_.Dep(last_, prev);
      } else {
        last_ = prev;
      }
    }
    if (n.cp > 0) {
      // Ring attention (Megatron-Core): the K/V blocks travel while the
      // attention computes on the ones already there, so the exchange runs
      // beside the piece's compute and the piece ends when both have.
      const int x = cp_.During(before, d_, c, op.forward, k, mb, unit, n.cp);
      const int join = g_.Compute(gpu_, "cp_overlap_join", Work{});
      g_.Dep(join, last_);
      g_.Dep(join, x);
      last_ = join;
    }
    // A mixture of experts' token all-to-alls, which wait for the whole
    // EP group (blocking, as Megatron-Core's dispatcher by default).
    if (n.ep > 0) last_ = ep_.After(last_, d_, c, op.forward, k, mb, unit, n.ep);
  }

  TaskGraph& g_;
  const ParallelSpec& p_;
  const int stage_, d_, gpu_;
  const std::vector<int> tp_group_;
  const std::vector<StageCost>& chunks_;
  DataParallelEmitter& dp_;
  ExpertExchange& ep_;
  ContextExchange& cp_;
  const Bytes hidden_;
  PipelineLinks& links_;
  int last_ = kNoTask;  // the previous blocking task on this GPU
  int segment_ = 0;     // compute segments so far (ZeRO-3 gather order)
};

}  // namespace

void EmitStage(TaskGraph& g, const Scenario& s, int stage, int micro_batches, Bytes hidden,
               PipelineLinks& links) {
  const ParallelSpec& p = s.parallel;
  std::vector<StageCost> chunks;  // the model chunks this stage holds
  for (int k = 0; k < p.vp; ++k) chunks.push_back(CostOfStage(s, k * p.pp + stage));
  DataParallelEmitter dp(g, s, stage, chunks, micro_batches);
  ExpertExchange ep(g, s, stage);
  ContextExchange cp(g, s, stage);
  std::vector<int> optimizers;
  for (int d = 0; d < p.dp; ++d)
    optimizers.push_back(Worker(g, s, stage, d, chunks, dp, ep, cp, hidden, links).Run(micro_batches));
  dp.Finish(optimizers);
  links.flush_reduce[stage] = dp.LateReduce();
}

}  // namespace pf
