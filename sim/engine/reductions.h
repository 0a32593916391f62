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
// PREFLIGHT_FULL_SIMULATION=1 (engine.h) turns both off;
// tests/engine/reduction_test.cc compares both ways.
#pragma once

#include "sim/engine/node_topology.h"
#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

struct Reductions {
  bool lane_zero_only = false;
  bool one_flow_inside_nodes = false;
};

Reductions ExactReductions(const Scenario& s, const preflight::Workload& w, const NodeTopology& topo);

}  // namespace pf
