#include "sim/workload/pipeline.h"

#include "sim/model/model_math.h"
#include "sim/model/stack.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/rank_layout.h"

namespace pf {
void EmitPipelineSends(TaskGraph& g, const Scenario& s, int micro_batches, Bytes hidden,
                       const PipelineLinks& links) {
  const ParallelSpec& p = s.parallel;
  const Bytes shard = hidden / p.tp;
  for (int vs = 0; vs + 1 < p.pp * p.vp; ++vs)
    for (int d = 0; d < p.dp; ++d)
      for (int mb = 0; mb < micro_batches; ++mb) {
        int src = GpuIndex(p, 0, d, vs % p.pp), dst = GpuIndex(p, 0, d, (vs + 1) % p.pp);
        int f = g.Transfer("pp_send_act", src, dst, shard, p.tp);
        g.Dep(f, links.fwd_out[vs][d][mb]);
        g.Dep(links.fwd_in[vs + 1][d][mb], f);
        int b = g.Transfer("pp_send_grad", dst, src, shard, p.tp);
        g.Dep(b, links.bwd_out[vs + 1][d][mb]);
        g.Dep(links.bwd_in[vs][d][mb], b);
      }
}

void EmitTiedEmbeddingSync(TaskGraph& g, const Scenario& s, const PipelineLinks& links) {
  const ParallelSpec& p = s.parallel;
  if (!TiedEmbeddingCopies(s.model, p) || s.training.method != Method::kFull) return;
  // The gradient as the stack keeps it: Megatron's main_grad (fp32 when it
  // accumulates in fp32, stack.h GradientBytes), or under DeepSpeed's
  // PipelineEngine the BF16_Optimizer's fp32 copy (`weight._hp_grad if
  // self.bfloat16_enabled()`, runtime/pipe/engine.py _exec_reduce_tied_grads
  // @ v0.6.5, as on master).
  const bool flush = ReducesAfterFlush(s);
  const double element = flush ? FlushReduceBytes(s) : GradientBytes(s.training);
  const Bytes bytes(double(s.model.vocab) * s.model.hidden / p.tp * element);
  const int last = p.pp - 1;
  for (int d = 0; d < p.dp; ++d) {
    int x = g.Collective("embedding_grad_sync", preflight::DP_COMM, preflight::ALL_REDUCE,
                         {GpuIndex(p, 0, d, 0), GpuIndex(p, 0, d, last)}, bytes, 1, p.tp);
    g.Dep(x, links.stage_end[0][d]);
    g.Dep(x, links.stage_end[last][d]);
    g.Dep(links.stage_opt[0][d], x);
    g.Dep(links.stage_opt[last][d], x);
    // The PipelineEngine's ReduceTiedGrads instruction runs before its
    // ReduceGrads (runtime/pipe/schedule.py TrainSchedule), each a
    // blocking all-reduce on the stage's stream.
    // (With one DP rank there is no reduce to wait.)
    if (flush)
      for (int stage : {0, last})
        if (links.flush_reduce[stage] != kNoTask) g.Dep(links.flush_reduce[stage], x);
  }
}

}  // namespace pf
