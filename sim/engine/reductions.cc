#include "sim/engine/reductions.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/engine/engine.h"

namespace pf {

namespace {

// See reductions.h: NVLink carries only collectives of one fixed set of
// GPUs per node, each inside its node, and no send between GPUs of a node.
bool NvlinkCarriesOneGroupPerNode(const Scenario& s, const preflight::Workload& w) {
  const NodeSpec& n = s.cluster.node;
  if (n.intra_kind != IntraKind::kNvswitch) return false;
  const int g = n.gpus_per_node;
  std::vector<std::vector<int>> set_of_node(s.cluster.nodes);
  std::vector<int> group, nodes;
  // A step runs each group's collectives many times: each (GPUs, lanes,
  // stride) is checked once.
  std::set<std::vector<uint32_t>> checked;
  std::vector<uint32_t> seen;
  for (const preflight::Task& t : w.tasks()) {
    if (t.has_transfer()) {
      const auto& x = t.transfer();
      for (uint64_t l = 0; l < std::max<uint32_t>(1, x.lanes()); ++l) {
        const uint64_t src = x.src_gpu() + l * x.lane_stride(), dst = x.dst_gpu() + l * x.lane_stride();
        if (src != dst && src / g == dst / g) return false;
      }
    }
    if (!t.has_collective()) continue;
    const auto& c = t.collective();
    seen.assign(c.gpus().begin(), c.gpus().end());
    seen.push_back(c.lanes()), seen.push_back(c.lane_stride());
    if (!checked.insert(seen).second) continue;
    for (uint64_t l = 0; l < std::max<uint32_t>(1, c.lanes()); ++l) {
      group.clear(), nodes.clear();
      for (uint32_t x : c.gpus()) {
        group.push_back(static_cast<int>(x + l * c.lane_stride()));
        nodes.push_back(group.back() / g);
      }
      if (group.size() < 2) continue;
      const int node = nodes.front();
      const bool one_node = std::all_of(nodes.begin(), nodes.end(), [&](int k) { return k == node; });
      std::sort(nodes.begin(), nodes.end());
      if (!one_node && std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end()) continue;  // one GPU per node
      if (!one_node || node >= int(set_of_node.size())) return false;
      std::sort(group.begin(), group.end());
      if (set_of_node[node].empty()) set_of_node[node] = group;
      else if (set_of_node[node] != group) return false;
    }
  }
  return true;
}

// The data-parallel replica of GPU x (rank layout, workload/rank_layout.h:
// GPU = t + tp x (d + dp x stage)).
int ReplicaOf(const ParallelSpec& p, long long x) { return static_cast<int>((x / p.tp) % p.dp); }

// Appends what a task costs to `key`: its kernels' time, or the bytes it
// moves and how (the doubles' bits).
void AppendCosts(const preflight::Task& t, std::vector<long long>& key) {
  auto add = [&](double cost) {
    long long bits;
    static_assert(sizeof(bits) == sizeof(cost));
    std::memcpy(&bits, &cost, sizeof(bits));
    key.push_back(bits);
  };
  if (t.has_compute()) {
    add(t.compute().duration_s()), add(t.compute().flops()), add(t.compute().host_wait_s());
  } else if (t.has_io()) {
    add(t.io().size_bytes()), add(double(t.io().direction()));
    add(double(t.io().host_only())), add(double(t.io().requests()));
    for (unsigned char ch : t.io().tier()) add(ch);
  } else if (t.has_cpu()) {
    add(t.cpu().core_seconds()), add(double(t.cpu().threads()));
  } else if (t.has_transfer()) {
    add(t.transfer().size_bytes()), add(double(t.transfer().lanes())), add(double(t.transfer().lane_stride()));
  } else {
    const auto& c = t.collective();
    add(c.size_bytes()), add(double(c.kind())), add(double(c.count())), add(double(c.lanes()));
    add(double(c.lane_stride())), add(double(c.algorithm()));
  }
}

// See reductions.h. Twins are matched by what a task does (its category,
// kind and GPUs moved into replica 0) and by how many such tasks came
// before it; any task that fits no replica, or a replica whose tasks do not
// match replica 0's one for one, turns the reduction off.
std::vector<int> ReplicaTwins(const Scenario& job, const preflight::Workload& w) {
  // Under context parallelism the workload is built as its ranks see it
  // (spec.h ContextRankView): dp x cp replicas, the cp of one sequence
  // adjacent, exchanging K/V among themselves. Replicas are mirrored by
  // units of a sequence's CP ranks: unit 0's run, replica d does what
  // replica d mod cp does, and its unit's exchanges run.
  const Scenario s = ContextRankView(job);
  const ParallelSpec& p = s.parallel;
  const int unit = std::max(1, p.context_group);
  const ClusterSpec& c = s.cluster;
  const int g = c.node.gpus_per_node;
  if (p.dp < 2 || (c.fabric.kind == FabricKind::kFatTree && Leaves(c) > 1)) return {};
  // Mirrored collectives stay inside a node on NVLink, which nothing
  // else shares there; on PCIe they would share links with sends.
  if (c.node.intra_kind != IntraKind::kNvswitch) return {};
  if (static_cast<long long>(w.gpus()) != c.gpus() || p.tp * p.dp * p.pp != c.gpus()) return {};
  // Every node holds one replica, or nodes hold several and only the
  // replicas' kernels are mirrored (a collective inside a replica would
  // share the node's NVLink ports with the others' data-parallel traffic).
  bool shared_nodes = false;
  for (long long node = 0; node < c.nodes && !shared_nodes; ++node)
    for (long long x = node * g; x < (node + 1) * g; ++x)
      if (ReplicaOf(p, x) != ReplicaOf(p, node * g)) shared_nodes = true;
  using Key = std::vector<long long>;
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = k.size();
      for (long long x : k) h ^= std::hash<long long>()(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      return h;
    }
  };
  // What a task does -> replica 0's tasks doing it (in order), and how many
  // of them each other replica has matched so far.
  struct Doers {
    std::vector<int> tasks;
    std::vector<int> matched;
  };
  std::unordered_map<Key, Doers, KeyHash> zero;
  std::vector<int> twin(w.tasks_size(), -1);
  std::vector<long long> shift_of(w.tasks_size(), 0);
  Key gpus, key;
  // Task i's replica (-1: it spans replicas, a data-parallel collective,
  // which runs) and, when that replica is `want` (replica 0, or any other),
  // in `key` what it does as replica 0's GPUs; false when it names no GPU,
  // or a send of its replica crosses the fabric unlike its twin (not the
  // same switches between its nodes).
  enum Want { kReplicaZero, kOthers };
  auto describe = [&](int i, int& d, Want want) {
    const preflight::Task& t = w.tasks(i);
    gpus.clear();
    if (t.has_compute()) gpus.push_back(t.compute().gpu());
    else if (t.has_io()) gpus.push_back(t.io().gpu());
    else if (t.has_transfer()) gpus.push_back(t.transfer().src_gpu()), gpus.push_back(t.transfer().dst_gpu());
    else if (t.has_collective()) gpus.assign(t.collective().gpus().begin(), t.collective().gpus().end());
    else if (t.has_cpu()) gpus.push_back((long long)t.cpu().node() * g);  // its node's first GPU
    if (gpus.empty()) return false;
    d = ReplicaOf(p, gpus.front());
    if (!std::all_of(gpus.begin(), gpus.end(), [&](long long x) { return ReplicaOf(p, x) == d; })) {
      d = -1;
      return true;
    }
    if (shared_nodes && t.has_collective()) return false;
    if ((d < unit) != (want == kReplicaZero)) return true;
    // GPU x of replica d does what GPU x - shift does in unit 0, at the
    // same cost.
    const long long shift = (d - d % unit) * p.tp;
    key.assign({t.category(), t.kind_case()});
    for (long long x : gpus) key.push_back(x - shift);
    AppendCosts(t, key);
    return !t.has_transfer() || SwitchHops(c, gpus[0] / g, gpus[1] / g) ==
                                    SwitchHops(c, (gpus[0] - shift) / g, (gpus[1] - shift) / g);
  };
  // A collective over several replicas of one unit (a CP exchange): where
  // unit 0 holds the same one on its GPUs, that one (for the dependency
  // check below); -1 otherwise (a collective of every unit: data parallel).
  std::unordered_map<Key, std::vector<int>, KeyHash> spanning;
  std::vector<int> ordinal(w.tasks_size(), -1);
  auto spanning_key = [&](int i, long long shift) {
    key.assign({w.tasks(i).category()});
    for (uint32_t x : w.tasks(i).collective().gpus()) key.push_back(x - shift);
    AppendCosts(w.tasks(i), key);
    return key;
  };
  if (unit > 1)
    for (int i = 0; i < w.tasks_size(); ++i)
      if (w.tasks(i).has_collective()) {
        auto& list = spanning[spanning_key(i, 0)];
        ordinal[i] = int(list.size());
        list.push_back(i);
      }
  // The two collectives cross the same links alike: their GPUs share nodes
  // in the same pattern and every pair of their nodes is as many switches
  // apart (a CP unit that straddles nodes or leaves where unit 0 does not
  // would not end when unit 0's does).
  auto alike_on_the_fabric = [&](int a, int b) {
    const auto &x = w.tasks(a).collective().gpus(), &y = w.tasks(b).collective().gpus();
    if (x.size() != y.size()) return false;
    for (int k = 0; k < x.size(); ++k)
      for (int l = k + 1; l < x.size(); ++l) {
        const int xa = int(x[k]) / g, xb = int(x[l]) / g, ya = int(y[k]) / g, yb = int(y[l]) / g;
        if ((xa == xb) != (ya == yb) || SwitchHops(c, xa, xb) != SwitchHops(c, ya, yb)) return false;
      }
    return true;
  };
  bool unalike = false;
  auto in_unit_zero = [&](int i, long long shift) {
    if (unit == 1 || shift == 0 || !w.tasks(i).has_collective()) return i;
    const auto it = spanning.find(spanning_key(i, shift));
    if (it == spanning.end() || ordinal[i] >= int(it->second.size())) return i;
    const int zero_one = it->second[ordinal[i]];
    if (!alike_on_the_fabric(i, zero_one)) unalike = true;
    return zero_one;
  };
  int d = 0;
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (!describe(i, d, kReplicaZero)) return {};
    if (d >= 0 && d < unit) zero[key].tasks.push_back(i);
  }
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (!describe(i, d, kOthers)) return {};
    if (d < unit) continue;
    const auto it = zero.find(key);
    if (it == zero.end()) return {};
    Doers& doers = it->second;
    if (doers.matched.empty()) doers.matched.assign(p.dp, 0);
    const int k = doers.matched[d]++;
    if (k >= int(doers.tasks.size())) return {};
    twin[i] = doers.tasks[k];
    shift_of[i] = (d - d % unit) * p.tp;
  }
  // And each waits for what its twin waits for (its own replica's tasks
  // standing for their twins; shared collectives as they are).
  std::vector<int> mine, theirs;
  for (int i = 0; i < w.tasks_size(); ++i) {
    if (twin[i] < 0) continue;
    mine.clear(), theirs.clear();
    for (uint32_t dep : w.tasks(i).deps())
      mine.push_back(twin[dep] >= 0 ? twin[dep] : in_unit_zero(int(dep), shift_of[i]));
    for (uint32_t dep : w.tasks(twin[i]).deps()) theirs.push_back(int(dep));
    std::sort(mine.begin(), mine.end());
    std::sort(theirs.begin(), theirs.end());
    if (mine != theirs || unalike) return {};
  }
  // Sends and storage reads of every replica run (they share NICs, PCIe
  // and storage servers with the data-parallel traffic): only kernels and
  // the collectives inside a replica are mirrored.
  for (int i = 0; i < w.tasks_size(); ++i)
    if (twin[i] >= 0 && (w.tasks(i).has_transfer() || w.tasks(i).has_io())) twin[i] = -1;
  return twin;
}

}  // namespace

Reductions ExactReductions(const Scenario& s, const preflight::Workload& w, const NodeTopology& topo) {
  const char* full = std::getenv(kFullSimulationEnv);
  if (full && std::string(full) == "1") return {};
  // An oversubscribed leaf's uplinks carry every lane.
  const bool shared_uplinks = s.cluster.fabric.kind == FabricKind::kFatTree && Leaves(s.cluster) > 1;
  return {!shared_uplinks && topo.LanesIndependent(), NvlinkCarriesOneGroupPerNode(s, w), ReplicaTwins(s, w)};
}

}  // namespace pf
