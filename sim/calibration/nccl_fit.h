// The fit behind the NCCL constants of collectives/nccl.h: the per-step
// latency of each protocol, LL128's bandwidth, NVLS's latency and
// efficiency, fitted to the published nccl-tests all-reduce curves of
// tests/data/nccl_allreduce_1node.csv (8x A100 and 8x H100, 1 MB to 8 GiB),
// each run on its bundled node. For a given LL128 bandwidth the model is
// linear in the other constants: least squares (Eigen) on the relative
// time errors, with each point run by the algorithm and protocol the model
// then picks, repeated until those picks settle; the LL128 bandwidth is
// the one of least squared error on a 0.01 grid.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/nccl.h"

namespace pf {

struct NcclCurvePoint {
  std::string system;  // as the table names it
  std::string node;    // the bundled node topology it ran on
  double size_bytes = 0;
  double busbw_gbps = 0;  // published
};

// The curves of `root`/tests/data/nccl_allreduce_1node.csv with their
// bundled nodes. Throws InputError on an unreadable table or a system
// without a bundled node.
std::vector<NcclCurvePoint> LoadNcclCurves(const std::string& root);

// The model's bus bandwidth (GB/s) for one point under `c`: an all-reduce
// over the node's GPUs, NCCL's choice of algorithm and protocol.
double ModelBusBandwidth(const NcclCurvePoint& p, const NcclConstants& c);

struct NcclFitResult {
  NcclConstants fitted;
  NcclConstants shipped;             // `fitted` as nccl.h writes it
  std::vector<double> relative_errors;  // model / published - 1, per point, at `fitted`
};

NcclFitResult FitNccl(const std::vector<NcclCurvePoint>& points);

// `c` written as nccl.h holds it: latencies to 0.01 us, fractions to 0.001.
NcclConstants RoundedNccl(const NcclConstants& c);

}  // namespace pf
