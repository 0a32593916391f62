// How NCCL runs a collective, as a model with explicit constants: the
// achieved fraction of line rate per link class, each protocol's per-step
// latency and bandwidth, NVLS's latency and bandwidth, and the choice of
// algorithm and protocol by least modelled time, as NCCL's tuner chooses.
// The fitted constants are the result of NcclFit (sim/calibration/
// nccl_fit.h) over tests/data/nccl_allreduce_1node.csv, which
// tests/calibration/ checks. No SimGrid.
#pragma once

#include <optional>

#include "sim/base/units.h"
#include "sim/collectives/collective.h"

namespace pf {

// Achieved fraction of line rate for large messages, per link class; the
// platform gives SimGrid links line rate x this.
// NVLink by generation (0 = unknown: the mean of the measured ones).
double NvlinkEfficiency(int generation);
double NicEfficiency();      // RDMA (InfiniBand; RoCE assumed the same)
double TcpSocketEfficiency();  // NCCL's socket transport
double PcieEfficiency();
// Without GPUDirect RDMA a CPU proxy thread copies each NIC's bytes
// between GPU and host memory: per NIC, per direction.
BytesPerSecond HostStagingBandwidth();

// The constants of the latency-bandwidth model. Per ring or chain step a
// protocol costs `step_latency` plus the hop's link latency; LL moves half
// its bytes as flags (bandwidth 1/2 of Simple's, by its wire format); LL128
// moves `ll128_bandwidth` of Simple's (fitted: lower than its 120/128 wire
// format, as measured); a tree reaches `tree_bandwidth` of a ring's bus
// bandwidth (NCCL 2.21 src/graph/tuning.cc: Tree busBw = min(bw x 0.92, ...),
// quoted in topologies/hardware_facts.md); NVLS costs
// `nvls_latency` once and reaches `nvls_efficiency` of the NVLink line rate
// per direction on each GPU's S bytes in and S out.
struct NcclConstants {
  double step_latency_ll_s = 1.26e-6;
  double step_latency_ll128_s = 3.49e-6;
  double step_latency_simple_s = 21.51e-6;
  double ll128_bandwidth = 0.67;
  double nvls_latency_s = 51.8e-6;
  double nvls_efficiency = 0.581;
  double ll_bandwidth = 0.5;
  double tree_bandwidth = 0.92;
  double step_latency_s(Protocol p) const;
  double bandwidth(Protocol p) const;  // relative to Simple
};

// What a collective's group crosses, as the platform sees it: per-GPU
// achieved bandwidth inside a node (and its line rate and link class
// efficiency, for NVLS), the achieved NIC bandwidth a node gives the group,
// and the link latency of one hop of each kind.
struct GroupPaths {
  BytesPerSecond intra;           // per GPU per direction, achieved
  BytesPerSecond intra_line;      // per GPU per direction, line rate
  Seconds intra_hop;
  BytesPerSecond inter;           // per node, over the NICs the group uses, achieved
  Seconds inter_hop;
  bool nvls = false;              // the GPUs share an NVSwitch that reduces (NVSwitch gen 3+)
};

// One collective as the model runs it: algorithm, protocol, the latency
// paid before the bytes move, the bandwidth factor the bytes move at
// (flows carry bus bytes / factor), and the modelled uncontended time.
struct CollectivePlan {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  Seconds latency;
  double bandwidth_factor = 1;
  Seconds time;
};

// The algorithms NCCL offers for `kind` on `shape` (ring always; tree for
// all-reduce across nodes; NVLS for all-reduce inside one NVLS node).
bool Offers(Algorithm a, CollectiveKind kind, const GroupShape& shape, const GroupPaths& paths);

// The plan of least modelled time over the algorithms offered (only
// `forced` when given: nullopt when it is not offered) and their
// protocols (Simple only for NVLS).
std::optional<CollectivePlan> PlanCollective(CollectiveKind kind, const GroupShape& shape,
                                             const GroupPaths& paths, Bytes size,
                                             const NcclConstants& c = NcclConstants(),
                                             std::optional<Algorithm> forced = std::nullopt);

// The uncontended time of one algorithm and protocol (what PlanCollective
// minimises).
CollectivePlan ModelCollective(CollectiveKind kind, const GroupShape& shape, const GroupPaths& paths,
                               Bytes size, Algorithm a, Protocol p, const NcclConstants& c);

}  // namespace pf
