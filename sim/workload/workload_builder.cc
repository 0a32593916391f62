#include "sim/workload/workload_builder.h"

#include <fmt/format.h>

#include "sim/base/error.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/spec/names.h"
#include "sim/workload/dataloader.h"
#include "sim/workload/size_estimate.h"
#include "sim/workload/pipeline.h"
#include "sim/workload/rank_layout.h"
#include "sim/workload/stage_emitter.h"
#include "sim/workload/task_graph.h"
#include "sim/workload/workload_check.h"

namespace pf {

preflight::Workload BuildWorkload(const Scenario& s) {
  preflight::Workload w;
  BuildWorkload(s, w);
  return w;
}

google::protobuf::ArenaOptions WorkloadArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 << 10;
  options.max_block_size = 4 << 20;
  return options;
}

void BuildWorkload(const Scenario& job, preflight::Workload& w) {
  // Unpacked samples padded to each micro-batch's longest: the sequences
  // as long as that (model/padding.h); the tokens learned from are the
  // samples'.
  if (PadsToLongest(job.training)) return BuildWorkload(PaddedView(job), w);
  // Context parallelism: built as its ranks see it (spec.h ContextRankView);
  // the step's FLOPs and tokens are the job's.
  const Scenario view = ContextRankView(job);
  const Scenario& s = job.parallel.cp > 1 ? view : job;
  const SimulationSize size = EstimateSimulationSize(s);
  if (size.tasks > s.max_tasks)
    throw InputError({s.file}, "", fmt::format(
        "one step would be about {:.3g} tasks (about {:.1f} GB and {:.0f} s to simulate), over the "
        "budget of {:.3g} tasks (--max-tasks): {}", size.tasks, size.memory_bytes / 1e9,
        size.seconds, s.max_tasks, size.driver));
  const ParallelSpec& p = s.parallel;
  const TrainingSpec& t = s.training;
  const int micro_batches = t.micro_batches_per_step(p.dp);
  const Bytes hidden = HiddenStateBytes(s.model, t);
  TaskGraph g(w.GetArena());
  PipelineLinks links(p, micro_batches);
  for (int stage = 0; stage < p.pp; ++stage) EmitStage(g, s, stage, micro_batches, hidden, links);
  EmitTiedEmbeddingSync(g, s, links);
  EmitPipelineSends(g, s, micro_batches, hidden, links);
  EmitDataLoader(g, s, micro_batches, links);

  w.set_scenario(s.name);
  w.set_gpus(s.cluster.gpus());
  w.set_gpus_per_node(s.cluster.node.gpus_per_node);
  w.set_schema_version(kWorkloadSchemaVersion);
  w.set_gpu(s.cluster.node.gpu.name);
  w.set_precision(ToString(t.precision));
  w.set_zero3_zero_copy(TraitsOf(t.stack).zero3_zero_copy);
  w.set_tp(p.tp);
  for (int stage = 0; stage < p.pp; ++stage)
    for (int d = 0; d < p.dp; ++d) w.add_workers(GpuIndex(p, 0, d, stage));
  const StepFlops flops = TrainingStepFlops(job.model, job.training);
  w.set_model_flops(flops.model.value());
  w.set_hardware_flops(flops.hardware.value());
  w.set_tokens_per_step(job.training.tokens_per_step());
  g.Finish(w);
}

}  // namespace pf
