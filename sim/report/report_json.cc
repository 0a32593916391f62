#include "sim/report/money_report.h"
#include "sim/report/report.h"

#include "sim/model/kbit_upcast.h"
#include "sim/model/known_gaps.h"
#include "sim/model/memory_model.h"
#include "sim/model/model_math.h"
#include "sim/model/padding.h"
#include "sim/model/stack.h"
#include "sim/spec/names.h"

namespace pf {

nlohmann::json ToJson(const Result& r, const Alternative* alternative) {
  using nlohmann::json;
  const Scenario& s = r.scenario;
  const MemoryBreakdown& m = r.memory;
  json j;
  j["scenario"] = {{"name", s.name}, {"file", s.file}, {"model", s.model.name},
                   {"node", s.cluster.node.name}, {"nodes", s.cluster.nodes},
                   {"gpus", s.cluster.gpus()},
                   {"cluster", s.cluster.name},
                   {"fabric", {{"kind", ToString(s.cluster.fabric.kind)},
                               {"oversubscription", s.cluster.fabric.oversubscription},
                               {"placement", ToString(s.cluster.fabric.placement)},
                               {"leaves", Leaves(s.cluster)},
                               {"nodes_per_leaf", NodesPerLeaf(s.cluster)}}},
                   {"parallel", {{"tp", s.parallel.tp}, {"cp", s.parallel.cp}, {"pp", s.parallel.pp}, {"vp", s.parallel.vp},
                                 {"dp", s.parallel.dp}, {"zero", s.parallel.zero}, {"sp", s.parallel.sp}, {"tp_overlap", s.parallel.tp_overlap},
                                 {"distributed_optimizer", s.parallel.distributed_optimizer},
                                 {"param_gather_overlap", s.parallel.param_gather_overlap},
                                 {"hsdp", s.parallel.hsdp}, {"ep", s.parallel.ep}, {"ep_dispatcher", ToString(s.parallel.dispatcher)},
                                 {"ep_overlap", s.parallel.ep_overlap},
                                 {"expert_tp", s.parallel.etp()},
                                 {"expert_dp", s.parallel.expert_dp()}}}};
  if (s.model.kind == ModelKind::kTransformer) {
    const ParamCount pc = CountParams(s.model);
    j["scenario"]["params"] = pc.total(s.model.layers);
    j["scenario"]["active_params"] = pc.active(s.model.layers);
    j["scenario"]["attention_window"] = s.model.window;
    j["scenario"]["attention_window_share"] = s.model.window > 0 ? s.model.window_share : 0.0;
    j["scenario"]["glu_clamp"] = s.model.glu_clamp;
    j["scenario"]["dropout"] = s.model.dropout;
    j["scenario"]["attention"] = {{"kernel", ToString(s.training.attention)},
                                  {"default", !s.training.attention_given},
                                  {"span_tokens", s.training.attention_span()}};
    if (s.model.moe.enabled())
      j["scenario"]["moe"] = {{"experts", s.model.moe.experts},           {"top_k", s.model.moe.top_k},
                              {"expert_ffn", s.model.moe.expert_ffn},     {"shared_experts", s.model.moe.shared_experts},
                              {"shared_ffn", s.model.moe.shared_ffn},     {"capacity_factor", s.training.capacity_factor},
                              {"expert_imbalance", s.training.expert_imbalance},
                              {"dense_layers", s.model.moe.dense_layers},
                              {"groups", s.model.moe.groups},             {"group_topk", s.model.moe.group_topk}};
    if (s.model.mla.enabled())
      j["scenario"]["mla"] = {{"q_lora", s.model.mla.q_lora}, {"kv_lora", s.model.mla.kv_lora},
                              {"qk_nope", s.model.mla.qk_nope}, {"qk_rope", s.model.mla.qk_rope}, {"v", s.model.mla.v}};
    json layers = json::array();
    for (int stage = 0; stage < s.parallel.pp; ++stage) layers.push_back(LayersOfStage(s.model, s.parallel, stage));
    j["scenario"]["parallel"]["stage_layers"] = layers;
  }
  j["scenario"]["stack"] = {{"name", ToString(s.training.stack)}, {"default", !s.training.stack_given},
                            {"packing", s.training.packing},
                            {"padding", ToString(s.training.padding)},
                            {"sample_len_cv", s.training.sample_len_cv},
                            {"length_group_samples", LengthGroupSamples(s)},
                            {"dora", s.training.dora},
                            {"computed_tokens_per_sequence", PaddedView(s).training.seq_len},
                            {"useful_tokens_per_sequence", s.training.useful_tokens_per_sequence()},
                            {"gradient_bytes", GradientBytes(s.training)},
                            {"launch_blocking", s.training.launch_blocking},
                            {"qlora_upcast", ToString(ResidualUpcast(s.training) ? s.training.qlora_upcast
                                                                                 : QloraUpcast::kNone)},
                            {"pure_bf16", s.training.pure_bf16},
                            {"lora_dropout", s.training.lora_dropout},
                            {"compile", s.training.compile},
                            {"loss", ToString(s.training.loss)},
                            {"optimizer_in_backward", s.training.optimizer_in_backward},
                            {"optimizer", ToString(s.training.optimizer)},
                            {"offload_activations", s.training.offload_activations},
                            {"transformers", s.training.transformers == 0
                                                 ? std::string("current")
                                                 : std::to_string(4 + s.training.transformers / 100) + "." +
                                                       std::to_string(s.training.transformers % 100)}};
  // The recompute mode and, under selective, what it repeats (Megatron-Core's
  // modules; training_spec.h RecomputeModule).
  json modules = json::array();
  for (const auto& [module, name] : NamesOf(RecomputeModule{}))
    if (s.training.recomputes(module)) modules.push_back(name);
  j["scenario"]["recompute"] = {{"mode", ToString(s.training.recompute)}, {"modules", modules}};
  j["scenario"]["storage"] = json::array();
  for (const StorageTier& t : s.cluster.storage)
    j["scenario"]["storage"].push_back({{"name", t.name}, {"kind", ToString(t.kind)}, {"servers", t.servers},
                                        {"read_bps", t.read.value()}, {"write_bps", t.write.value()}});
  j["memory"] = {{"per_gpu_bytes", m.total.value()}, {"capacity_bytes", m.capacity.value()},
                 {"fits", m.fits}, {"stage", m.stage}, {"spare_bytes", Spare(m).value()},
                 {"weights_bytes", m.weights.value()}, {"gradients_bytes", m.gradients.value()},
                 {"optimizer_bytes", m.optimizer.value()},
                 {"activations_bytes", m.activations.value()}, {"logits_bytes", m.logits.value()},
                 {"zero_buffers_bytes", m.zero_buffers.value()}, {"optimizer_step_bytes", m.optimizer_step.value()},
                 {"ddp_buckets_bytes", m.ddp_buckets.value()},
                 {"paged_optimizer_bytes", m.paged_optimizer.value()},
                 {"paged_evicted_bytes", m.paged_evicted.value()},
                 {"phases_apart_bytes", m.phases_apart.value()},
                 {"cuda_context_bytes", m.cuda_context.value()}, {"nccl_buffers_bytes", m.nccl_buffers.value()},
                 {"allocator_reserve_bytes", m.allocator_reserve.value()}, {"framework_bytes", m.framework.value()},
                 {"allocator_cache_bytes", m.allocator_cache.value()}, {"phase_cache_bytes", m.phase_cache.value()},
                 {"observed_bytes", m.observed.value()}};
  const HostMemory& h = r.host;
  json host_fixes = json::array();
  for (const HostSuggestion& x : r.host_suggestions) host_fixes.push_back({{"change", x.change}, {"set", x.overrides}});
  j["host_memory"] = {{"per_node_bytes", h.total.value()},      {"capacity_bytes", h.capacity.value()},
                      {"fits", h.fits},                         {"processes_bytes", h.processes.value()},
                      {"workers_bytes", h.workers.value()},     {"batches_bytes", h.batches.value()},
                      {"offload_bytes", h.offload.value()},
                      {"offloaded_activations_bytes", h.activations.value()},     {"checkpoint_bytes", h.checkpoint.value()},
                      {"page_cache_bytes", h.page_cache.value()}, {"suggestions", host_fixes}};
  json sug = json::array();
  for (const auto& x : r.suggestions)
    sug.push_back({{"change", x.change}, {"set", x.overrides}, {"per_gpu_bytes", x.per_gpu.value()}});
  j["memory"]["suggestions"] = sug;
  // Regimes where published runs show the model optimistic (model/known_gaps.h).
  json gaps = json::array();
  for (const KnownGap& g : KnownGapsOf(s))
    gaps.push_back({{"regime", g.regime}, {"runs", g.runs}, {"error_low", g.error_low}, {"error_high", g.error_high},
                    {"source", g.source}});
  j["known_gaps"] = gaps;
  if (!r.step) {
    for (const char* k : {"step_time_s", "tokens_per_s", "mfu", "hfu", "scaling_efficiency",
                          "breakdown", "job"})
      j[k] = nullptr;
    return j;
  }
  const StepResult& st = *r.step;
  j["step_time_s"] = st.step_time.value();
  j["tokens_per_step"] = st.tokens_per_step;
  j["tokens_per_s"] = st.tokens_per_s;
  j["tokens_per_s_per_gpu"] = st.tokens_per_s / s.cluster.gpus();
  j["mfu"] = st.mfu;
  j["hfu"] = st.hfu;
  j["scaling_efficiency"] = st.scaling_efficiency;
  const Breakdown& b = st.breakdown;
  j["breakdown"] = {{"compute_s", b.compute.value()},     {"host_wait_s", b.host_wait.value()},
                    {"optimizer_s", b.optimizer.value()},
                    {"tp_comm_s", b.tp_comm.value()},     {"pp_comm_s", b.pp_comm.value()},
                    {"dp_comm_s", b.dp_comm.value()},     {"io_s", b.io.value()},
                    {"bubble_s", b.bubble.value()},
                    {"idle_s", b.idle.value()},           {"data_stall_s", b.data_stall.value()},
                    {"ep_comm_s", b.ep_comm.value()},     {"cp_comm_s", b.cp_comm.value()}};
  j["job"] = {{"tokens", s.training.job_tokens}, {"steps", st.steps},
              {"first_epoch_step_s", st.first_epoch_step ? json(st.first_epoch_step->value()) : json(nullptr)},
              {"first_epoch_steps", st.first_epoch_steps},
              {"wall_clock_s", st.wall_clock.value()},
              {"cost_usd", st.cost ? json(st.cost->value()) : json(nullptr)}};
  json money = MoneyJson(r);
  for (const char* q : {"_p05", "_p50", "_p95"}) {  // next to the headline step time
    j[std::string("step_time_s") + q] = money[std::string("step_time_s") + q];
    money.erase(std::string("step_time_s") + q);
  }
  j["job"].update(money);
  j["simulation"] = {{"tasks", st.tasks}, {"flows", st.flows}};
  if (st.checkpoint) {
    const CheckpointResult& c = *st.checkpoint;
    j["checkpoint"] = {{"tier", s.checkpoint.tier},
                       {"async", s.checkpoint.async},
                       {"every_s", s.checkpoint.every.value()},
                       {"every_steps", s.checkpoint.every_steps},
                       {"size_bytes", c.size.value()},
                       {"copy_s", c.copy.value()},
                       {"write_s", c.write.value()},
                       {"pause_s", c.pause.value()},
                       {"restore_s", c.restore.value()},
                       {"count", c.count},
                       {"total_pause_s", c.total_pause.value()}};
  }
  if (st.interruptions) {
    const Interruptions& i = *st.interruptions;
    j["interruptions"] = {{"mtbi_s", i.mtbi.value()},       {"expected", i.expected},
                          {"goodput", i.goodput},            {"wall_clock_s", i.wall.value()},
                          {"interval_s", i.interval.value()}, {"optimal_interval_s", i.optimal_interval.value()}};
  }
  if (r.data) {
    json stages = json::array(), fixes = json::array();
    for (const DataStage& x : r.data->stages) stages.push_back({{"name", x.name}, {"samples_per_s", x.samples_per_s}});
    for (const DataSuggestion& x : r.data->suggestions) fixes.push_back({{"change", x.change}, {"set", x.overrides}});
    j["data"] = {{"tier", s.data.tier},
                 {"format", ToString(s.data.format)},
                 {"workers", s.data.workers},
                 {"demand_samples_per_s", r.data->demand},
                 {"stages", stages},
                 {"stalls", r.data->stalls},
                 {"bottleneck", r.data->stalls && !r.data->stages.empty() ? json(r.data->stages.front().name) : json(nullptr)},
                 {"suggestions", fixes}};
  }
  j["alternative"] = alternative ? json{{"layout", alternative->layout},
                                          {"step_time_s", alternative->step.value()},
                                          {"speedup", alternative->speedup},
                                          {"screened", alternative->screened},
                                          {"simulated", alternative->simulated},
                                          {"set", alternative->overrides}}
                                   : json(nullptr);
  return j;
}

std::string RenderJson(const Result& r, const Alternative* alternative) {
  return ToJson(r, alternative).dump(2) + "\n";
}

}  // namespace pf
