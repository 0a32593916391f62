// The SimGrid platform of a cluster. With runner.cc, the only code that
// touches SimGrid.
//
//   cluster: star zone, a non-blocking crossbar between nodes
//   ┌──────────────────────────────────────────────────────────────┐
//   │  node k (full zone): GPU hosts, a CPU host (host memory), a  │
//   │  gateway to the fabric, and every link of its NodeTopology   │
//   │  (node_topology.h), each pair of endpoints routed as it says │
//   │   gpu0 ─nvl0_out─ nvl1_in─ gpu1          (NVSwitch)          │
//   │   gpu0 ─pcie0_out─[switch up]─ nic_out ─► gw ─► fabric       │
//   └──────────────────────────────────────────────────────────────┘
//
// Every GPU is a host whose speed is its dense peak for the training
// precision. Links carry line rate x achieved efficiency per link class
// (collectives/nccl.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/spec/spec.h"

namespace pf {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpus;  // by global GPU index
  // Each node's host (memory, and its CPU: one SimGrid core per core, each
  // at kCpuSpeed x the CPU's core_speed), by node.
  std::vector<simgrid::s4u::Host*> cpus;
  static constexpr double kCpuSpeed = 1e9;  // an Exec of t x kCpuSpeed FLOPs: t core-seconds
  double gpu_speed_flops = 0;             // host speed (FLOP/s)
  // A host with as many cores as any run can use, each at kTimerSpeed:
  // an Exec of t x kTimerSpeed FLOPs there is a pure delay of t seconds
  // (a collective's latency), never slowed by other delays.
  simgrid::s4u::Host* timer = nullptr;
  static constexpr double kTimerSpeed = 1e9;
  // Storage tiers by name. A tier's media are links, not SimGrid disks
  // (SimGrid 3.32 never takes a finished disk I/O off the list it scans at
  // every completion: a step of reads slowed down twofold). A local tier is
  // a host in each node (by node) whose route to the node's CPU host (host
  // memory) crosses its read link and back its write link; a shared tier's
  // servers are hosts in a zone on the fabric's core whose routes cross
  // their media and their own NIC.
  std::map<std::string, std::vector<simgrid::s4u::Host*>> local_media;
  struct Server {
    simgrid::s4u::Host* host = nullptr;
  };
  std::map<std::string, std::vector<Server>> servers;
};

// REQUIRES: a live simgrid::s4u::Engine with the network model configured.
Platform BuildPlatform(const Scenario& s);

}  // namespace pf
