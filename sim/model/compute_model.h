// Kernel time on one GPU from a roofline: a kernel takes a launch overhead
// plus the longer of its FLOPs at the GPU's achievable tensor throughput and
// its bytes at achievable HBM bandwidth. Constants and their sources are in
// compute_model.cc; no SimGrid.
#pragma once

#include <vector>

#include "sim/model/model_math.h"
#include "sim/spec/spec.h"

namespace pf {

// Fraction of peak a well-tuned large GEMM reaches on `g`: the measured
// figure from gemm_achievable.csv when the catalog has one, else the mean of
// the measured bf16 fractions.
double GemmEfficiency(const GpuSpec& g, Precision p = Precision::kBf16);

// Seconds one kernel takes.
Seconds OpTime(const Op& op, const GpuSpec& g, Precision p);
Seconds OpsTime(const std::vector<Op>& ops, const GpuSpec& g, Precision p);

// Adam step over `params` parameters held on one GPU (memory-bound).
Seconds OptimizerTime(double params, const GpuSpec& g);

}  // namespace pf
