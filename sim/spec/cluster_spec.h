// The hardware a scenario runs on, as plain structs in SI units: each GPU
// model's datasheet figures, a server's GPUs, PCIe, NICs and CPUs, how
// servers are cabled, and the storage tiers they read from
// (topologies/*.yaml, read by sim/scenario/spec_parsers.h and the pcie,
// fabric and storage parsers beside it). No YAML and no SimGrid here; the
// helpers declared below are defined in spec.cc.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/units.h"

namespace pf {

// One GPU model's datasheet figures (topologies/gpus.yaml).
struct GpuSpec {
  std::string name;
  FlopsPerSecond peak_bf16, peak_fp16, peak_fp8, peak_tf32, peak_fp32;  // dense; 0 when absent
  Bytes memory;
  BytesPerSecond memory_bandwidth;
  // The fraction of memory_bandwidth a streaming kernel (copy, elementwise)
  // reaches, measured on this GPU (topologies/gpus.yaml); absent: the HBM
  // parts' figure (model/compute_model.cc StreamingEfficiency).
  std::optional<double> memory_efficiency;
  BytesPerSecond nvlink_bidir;  // 0 without NVLink
  int pcie_gen = 0;
  int sms = 0;
  std::optional<double> gemm_efficiency;      // measured best bf16/fp16 GEMM fraction of peak
  std::optional<double> gemm_efficiency_fp8;  // the same for fp8
  std::string gemm_measured_on;  // the GPU those were measured on (this one, or its die's twin)
  // Measured attention-kernel throughput over the best GEMM's, per kernel
  // (topologies/gpus.yaml attention_vs_gemm); absent: FlashAttention-2's
  // A100 ratio (model/compute_model.cc). `triton`, where given, is fitted
  // rather than measured (gpus.yaml says over which runs); absent: the
  // calibrated ratio to FlashAttention-2's (spec/calibration.h).
  std::optional<double> attention_flash, attention_cudnn, attention_flash3, attention_triton;
  // The fraction of those measured rates (GEMM and attention) the GPU
  // sustains inside a training step, where it runs at its power limit for
  // minutes beside NCCL's kernels; absent: 1. Fitted over a GPU's published
  // training runs (build/calibrate --hopper for the H100).
  std::optional<double> training_rate;
  // The L2's size (0 when absent) and the partitions it is split into, each
  // caching for the SMs connected to it (A100, H100: 2): what a tensor must
  // fit in to be read back from it by any SM (model/l2_reuse.h).
  Bytes l2_cache;
  int l2_partitions = 1;
};

enum class IntraKind { kNvswitch, kPcie };
// What the NICs speak: RDMA over InfiniBand or over Ethernet (RoCE), or
// plain TCP sockets (NCCL's socket transport).
enum class NicKind { kInfiniband, kRoce, kTcp };

// A PCIe switch: the CPU socket its uplink reaches, and the GPUs and NICs
// (indices within the node) below it.
struct PcieSwitch {
  int socket = 0;
  std::vector<int> gpus, nics;
};

// The PCIe side of a node (topologies/hardware_facts.md section 1): each
// GPU's own link (generation x lanes), the switches GPUs and NICs sit
// behind, the CPU sockets with the link between them, and whether GPUs
// reach each other over PCIe directly (peer-to-peer) or only through
// host memory.
struct PcieSpec {
  int gen = 4;
  int lanes = 16;                // per GPU
  Seconds latency;               // one PCIe hop
  bool p2p = true;               // GeForce drivers: false
  int sockets = 1;
  BytesPerSecond inter_socket;   // per direction, achieved (UPI / xGMI); used when sockets > 1
  // Per socket: the rate at which the CPU side copies GPU-to-GPU traffic
  // staged through host memory (achieved); used when p2p is false.
  BytesPerSecond host_memory;
  int uplink_lanes = 16;         // each switch's link to its socket
  std::vector<PcieSwitch> switches;  // empty: every GPU and NIC on its own root port
};

// NVLink bridges between GPU pairs of a PCIe node (RTX 3090, A100 PCIe).
struct NvlinkBridges {
  std::vector<std::pair<int, int>> pairs;
  BytesPerSecond bandwidth;  // per direction, line rate
};

// A node's CPUs (topologies/cpus.yaml): what runs the dataloader workers,
// the CPU side of offloaded optimizers and the host side of copies.
struct CpuSpec {
  std::string name;
  int cores = 0;            // physical cores per node, all sockets
  // Throughput of one core relative to the reference core the CPU costs
  // are stated for (model/data_costs.h), from a published per-core figure.
  double core_speed = 1;
};

// One server: GPUs, their interconnect, NICs (topologies/<node>.yaml).
struct NodeSpec {
  std::string name;
  GpuSpec gpu;
  int gpus_per_node = 0;
  IntraKind intra_kind = IntraKind::kNvswitch;
  int nvlink_gen = 0;               // NVLink generation (0: unknown or none)
  bool nvls = false;                // the NVSwitch reduces in the switch (NVLink SHARP)
  BytesPerSecond intra_bandwidth;   // NVSwitch: per GPU per direction
  Seconds intra_latency;
  PcieSpec pcie;
  NvlinkBridges bridges;            // PCIe nodes only
  int nics = 0;
  NicKind nic_kind = NicKind::kInfiniband;
  // The NICs read and write GPU memory directly (GPUDirect RDMA); without
  // it every byte is staged through host memory by a CPU proxy thread.
  bool gpudirect_rdma = true;
  BytesPerSecond nic_bandwidth;  // per NIC per direction
  Seconds nic_latency;
  Bytes cpu_memory;
  CpuSpec cpu;
};

// `n` with only its first `gpus` GPUs (gpus <= n.gpus_per_node): the
// others leave their switches and bridges.
NodeSpec WithGpus(NodeSpec n, int gpus);

// How nodes are cabled (topologies/clusters/*.yaml).
// - rail: rail-optimized and non-blocking; NIC r of every node on rail r's
//   leaf switches, each holding radix / 2 nodes, spines above them.
// - fat_tree: every NIC of a node on one leaf switch; a leaf gives radix x
//   o / (o + 1) ports to nodes and the rest to spines, so traffic between
//   leaves shares uplinks `oversubscription` (o) times fewer than the node
//   ports. Spines (and, with 3 levels, cores above pods of radix / 2
//   leaves) are non-blocking.
enum class FabricKind { kRail, kFatTree };
// Where the job's nodes sit: filling leaf after leaf (a dedicated cluster),
// or one per leaf in turn (a shared cluster whose scheduler gives free
// nodes wherever they are: Meta measured >30% slower jobs from such
// fragmented placement, topologies/hardware_facts.md section 6).
enum class Placement { kPacked, kSpread };
struct FabricSpec {
  FabricKind kind = FabricKind::kRail;
  int radix = 0;                // ports per switch; 0: one leaf holds every node
  double oversubscription = 1;  // fat_tree: node ports per spine port of a leaf, >= 1
  int levels = 2;               // 2 (leaf-spine) or 3 (leaf-spine-core)
  Placement placement = Placement::kPacked;
  // Each switch beyond the first (whose latency nics.latency includes).
  Seconds switch_latency;
};

// A storage tier (the `storage:` list of a cluster): a node's own NVMe
// drives, its host memory as page cache, or a service on the fabric whose
// servers every client shares (an NFS server, a parallel file system of N
// servers that stripes each file over all of them, an object store).
enum class StorageKind { kLocalNvme, kPageCache, kNfs, kParallelFs, kObjectStore };
struct StorageTier {
  std::string name;
  StorageKind kind = StorageKind::kLocalNvme;
  int servers = 1;              // shared tiers
  BytesPerSecond read, write;   // per node (local tiers) or per server, from its media
  BytesPerSecond network;       // shared tiers: each server's NIC, per direction
  Seconds latency;              // to the first byte of a request
  Bytes capacity;               // per node (local tiers) or in all; 0: not stated
  bool shared() const { return kind != StorageKind::kLocalNvme && kind != StorageKind::kPageCache; }
};

struct ClusterSpec {
  NodeSpec node;
  int nodes = 0;
  FabricSpec fabric;
  std::vector<StorageTier> storage;
  std::string name;  // the cluster file's, or "" for {node, nodes}
  int gpus() const { return nodes * node.gpus_per_node; }
};

// Nodes per leaf switch (at least 1; every node when radix is 0).
int NodesPerLeaf(const ClusterSpec& c);
// Leaves the job's nodes use, and the leaf of node k.
int Leaves(const ClusterSpec& c);
int LeafOf(const ClusterSpec& c, int node);
// Leaves per pod of a 3-level fabric (radix / 2; every leaf with 2 levels).
int LeavesPerPod(const ClusterSpec& c);
// A fat-tree leaf's ports to the spines: its node ports / oversubscription,
// rounded up (0 on a rail fabric, which is non-blocking).
int LeafUplinks(const ClusterSpec& c);
// Switches a byte crosses from node a to node b: 0 (same node), 1 (same
// leaf), 3 (through a spine), 5 (through a core).
int SwitchHops(const ClusterSpec& c, int a, int b);

}  // namespace pf
