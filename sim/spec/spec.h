// The scenario as plain structs: everything the workload builder and the
// engine need, in SI units. LoadScenario (sim/scenario/scenario_loader.h)
// fills it from YAML; Validate (sim/spec/validate.h) checks it without YAML,
// so sweeps, plans and suggestions can check candidates they make. Enum
// spellings live in sim/spec/names.h. No YAML and no SimGrid here.
#pragma once

#include <optional>
#include <string>

#include "sim/base/units.h"
#include "sim/spec/calibration.h"

namespace pf {

enum class FfnKind { kGelu, kSwiglu };
enum class Position { kRope, kLearned, kAlibi };

// A decoder-only transformer.
struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // == heads without grouped-query attention
  int ffn = 0;       // intermediate size
  FfnKind ffn_kind = FfnKind::kGelu;
  int vocab = 0;
  bool tied_embeddings = false;
  Position position = Position::kRope;
  int max_seq = 0;   // rows of a learned position table
  bool bias = false; // linear layers carry bias vectors
  bool layernorm = true;  // LayerNorm (weight + bias) vs RMSNorm (weight only)
  int head_dim() const { return hidden / heads; }
};

// One GPU model's datasheet figures (topologies/gpus.yaml).
struct GpuSpec {
  std::string name;
  FlopsPerSecond peak_bf16, peak_fp16, peak_fp8, peak_fp32;  // dense; 0 when absent
  Bytes memory;
  BytesPerSecond memory_bandwidth;
  BytesPerSecond nvlink_bidir;  // 0 without NVLink
  int pcie_gen = 0;
  int sms = 0;
  std::optional<double> gemm_efficiency;      // measured best bf16/fp16 GEMM fraction of peak
  std::optional<double> gemm_efficiency_fp8;  // the same for fp8
  std::string gemm_measured_on;  // the GPU those were measured on (this one, or its die's twin)
};

enum class IntraKind { kNvswitch, kPcie };
// What the NICs speak: RDMA over InfiniBand or over Ethernet (RoCE), or
// plain TCP sockets (NCCL's socket transport).
enum class NicKind { kInfiniband, kRoce, kTcp };

// One server: GPUs, their interconnect, NICs (topologies/<node>.yaml).
struct NodeSpec {
  std::string name;
  GpuSpec gpu;
  int gpus_per_node = 0;
  IntraKind intra_kind = IntraKind::kNvswitch;
  int nvlink_gen = 0;               // NVLink generation (0: unknown or none)
  bool nvls = false;                // the NVSwitch reduces in the switch (NVLink SHARP)
  BytesPerSecond intra_bandwidth;   // per GPU per direction
  Seconds intra_latency;
  BytesPerSecond root_complex_bandwidth;  // pcie only: shared CPU path
  BytesPerSecond host_link_bandwidth;     // GPU <-> CPU/NIC PCIe, per direction
  Seconds host_link_latency;
  int nics = 0;
  NicKind nic_kind = NicKind::kInfiniband;
  // The NICs read and write GPU memory directly (GPUDirect RDMA); without
  // it every byte is staged through host memory by a CPU proxy thread.
  bool gpudirect_rdma = true;
  BytesPerSecond nic_bandwidth;  // per NIC per direction
  Seconds nic_latency;
  Bytes cpu_memory;
};

struct ClusterSpec {
  NodeSpec node;
  int nodes = 0;
  int gpus() const { return nodes * node.gpus_per_node; }
};

struct ParallelSpec {
  int tp = 1, pp = 1, dp = 1;
  // dp was not given: it is GPUs / (tp x pp) (ResolveDataParallel, validate.h).
  bool dp_auto = false;
  int vp = 1;    // model chunks per pipeline stage (interleaved 1F1B when > 1)
  int zero = 0;  // ZeRO stage 0..3 (3 = FSDP FULL_SHARD)
  // Data-parallel gradient reduction starts bucket by bucket during the
  // last backward (PyTorch DDP, FSDP, Megatron --overlap-grad-reduce) rather
  // than after it (Megatron-LM before 2023).
  bool dp_overlap = true;
};

enum class Method { kFull, kLora, kQlora };
enum class Precision { kBf16, kFp16, kFp8 };
enum class Recompute { kNone, kSelective, kFull };
enum class Attention { kFlash, kUnfused };

struct TrainingSpec {
  Method method = Method::kFull;
  Precision precision = Precision::kBf16;
  int seq_len = 0;
  int micro_batch = 0;
  int global_batch = 0;  // sequences per optimizer step
  Recompute recompute = Recompute::kNone;
  Attention attention = Attention::kFlash;
  double job_tokens = 0;  // tokens the whole job trains on (YAML: tokens)
  int lora_rank = 16;
  // Sequences per micro-batch x micro-batches per step x dp = global_batch.
  int micro_batches_per_step(int dp) const {
    return static_cast<int>(global_batch / (static_cast<long long>(micro_batch) * dp));
  }
  // Tokens one micro-batch carries through one pipeline (micro_batch x seq_len).
  double tokens_per_micro_batch() const { return double(micro_batch) * seq_len; }
  // Tokens one optimizer step trains on (global_batch x seq_len).
  double tokens_per_step() const { return double(global_batch) * seq_len; }
};

struct PriceSpec {
  std::optional<Usd> per_gpu_hour;  // exactly one of these is set, or neither
  std::optional<Usd> per_node_hour;
};

struct Scenario {
  std::string name;
  std::string file;
  ModelSpec model;
  ClusterSpec cluster;
  ParallelSpec parallel;
  TrainingSpec training;
  PriceSpec price;
  Calibration calibration;  // fitted constants (calibration.h); not from YAML
  // Largest task graph BuildWorkload builds (sim/workload/size_estimate.h):
  // about 1.5 GB and a minute on a 2-core machine. Not from YAML; the
  // command line's --max-tasks sets it.
  double max_tasks = 3e6;
};

// Dense tensor peak of `g` for the training precision (0 when the GPU has
// no tensor-core rate for it).
FlopsPerSecond PeakFlops(const GpuSpec& g, Precision p);

}  // namespace pf
