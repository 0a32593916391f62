// The reductions that keep a simulation small where they are exact, and
// the checks that decide when they are (no SimGrid):
// - lane 0 only: the TP ranks' lanes of a collective or send share no link
//   (each GPU its own NVLink port, PCIe path and NIC; a non-blocking
//   fabric), so lane 0 times every lane;
// - one flow inside a node: on an NVSwitch node whose NVLink carries only
//   the collectives of one fixed group of its GPUs (the TP group), each
//   hop of such a ring crosses its own pair of ports and carries what the
//   others carry, so the first hop times the collective, and collectives
//   that overlap share that hop as they share every hop.
// - one data-parallel replica's kernels: when every node holds the GPUs
//   of one replica, its NVLink carries only that replica's collectives,
//   and the replicas cross the fabric alike, the replicas run the same
//   schedule on identical hardware. Replica 0's kernels and collectives
//   inside it run; another replica's take their twin's times (each ends
//   when its twin ends, so what waits on it starts when it would). Every
//   send, storage read and data-parallel collective of every replica runs,
//   so the NICs, PCIe links, fabric and storage carry exactly what they
//   carry in the full run. A twin does the same thing on the GPU of the
//   same rank, at the same cost, after the same dependencies; a replica
//   that differs anywhere (a straggler in an imported workload) turns the
//   reduction off. Where a node holds GPUs of several replicas (tp x pp
//   below the node's GPUs: data parallelism inside the node) only kernels
//   are mirrored, each on its own GPU, and a collective inside a replica
//   turns the reduction off. Under context parallelism the replicas are
//   dp x cp (spec.h ContextRankView) and mirrored by units of one
//   sequence's CP ranks: unit 0 runs, replica d takes the times of replica
//   d mod cp, and every unit's K/V exchanges run.
// PREFLIGHT_FULL_SIMULATION=1 (engine.h) turns them off;
// tests/engine/reduction_test.cc compares both ways.
#pragma once

#include <vector>

#include "sim/engine/node_topology.h"
#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

struct Reductions {
  bool lane_zero_only = false;
  bool one_flow_inside_nodes = false;
  // Per task: its twin in replica 0, when whose end it ends, or -1 to run it.
  // Empty when every task runs.
  std::vector<int> twin;
};

Reductions ExactReductions(const Scenario& s, const preflight::Workload& w, const NodeTopology& topo);

}  // namespace pf
