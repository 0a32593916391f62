#include "sim/workload/expert_parallel.h"

#include "sim/model/moe.h"
#include "sim/workload/rank_layout.h"

namespace pf {

std::vector<EpCollective> ExchangeCollectives(const Scenario& s, int d, int stage, const StageCost& c) {
  const ParallelSpec& p = s.parallel;
  const LaneGroup group = EpGroup(p, d, stage);
  const int per_node = s.cluster.node.gpus_per_node, nodes = p.ep / per_node;
  if (p.dispatcher != Dispatcher::kDeepEp || group.lanes != 1 || nodes < 2 || p.ep % per_node != 0)
    return {{"ep_all_to_all", group.gpus, c.ep_bytes, group.lanes}};
  // DeepEP: each GPU's tokens cross to NodesPerToken - 1 other nodes on
  // average, once each, over its rail: an all-to-all of the EP group's
  // nodes' GPUs of one local rank (lanes: the others), where a GPU sends
  // (m - 1) / m of its buffer away. Every routed copy then reaches its
  // expert over NVLink.
  const MoeSpec& moe = s.model.moe;
  const double reached = NodesPerToken(moe, nodes);
  const double away = reached - reached / nodes;  // the token's remote nodes
  const Bytes rail_bytes = c.ep_bytes / double(moe.top_k) * (away * nodes / (nodes - 1));
  std::vector<EpCollective> out;
  std::vector<int> rail;
  for (int i = 0; i < nodes; ++i) rail.push_back(group.gpus[0] + i * per_node);
  out.push_back({"ep_rdma", rail, rail_bytes, per_node});
  for (int i = 0; i < nodes; ++i)
    out.push_back({"ep_nvlink", std::vector<int>(group.gpus.begin() + i * per_node, group.gpus.begin() + (i + 1) * per_node),
                   c.ep_bytes, 1});
  return out;
}

std::vector<int> ExpertExchange::Exchange(int d, const StageCost& c, bool forward, int count) {
  const std::string dir = forward ? "_fwd" : "_bwd";
  std::vector<int> out;
  for (const EpCollective& x : ExchangeCollectives(s_, d, stage_, c))
    out.push_back(g_.Collective(x.name + dir, preflight::EP_COMM, preflight::ALL_TO_ALL, x.gpus, x.bytes, count,
                                x.lanes));
  return out;
}

int ExpertExchange::After(int last, int d, const StageCost& c, bool forward, int chunk, int micro_batch, int j,
                          int count) {
  if (count <= 0) return kNoTask;
  const auto key = std::make_tuple(d / p_.ep_workers(), forward, chunk, micro_batch, j);
  auto it = tasks_.find(key);
  if (it == tasks_.end()) it = tasks_.emplace(key, Exchange(d, c, forward, count)).first;
  for (int x : it->second) g_.Dep(x, last);
  if (it->second.size() == 1) return it->second.front();
  // The worker goes on when its node's fan-out and its rails' sends are done.
  const int join = g_.Compute(GpuIndex(p_, 0, d, stage_), "ep_exchange_join", Work{});
  for (int x : it->second) g_.Dep(join, x);
  return join;
}

}  // namespace pf
