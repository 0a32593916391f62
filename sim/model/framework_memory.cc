#include "sim/model/framework_memory.h"

#include <algorithm>

#include "sim/model/padding.h"
#include "sim/model/stack.h"

namespace pf {
namespace {

// ---- CUDA --------------------------------------------------------------
// The CUDA context of a PyTorch process with the kernels a training step
// loads: "around 400MB if CUDA >= 11.7 ... lazy loading" (a PyTorch
// maintainer, pytorch/pytorch#109888, 2023-09-23; lazy module loading is
// PyTorch's default since 1.13, PR #86509, which measured 274 MiB for the
// bare context).
constexpr double kCudaContextBytes = 400e6;
// cuBLAS's workspace for the compute stream's handle, 4096 x 1024 x 2 +
// 16 x 1024 x 8 B (32 MiB on sm90), and cuBLASLt's 1 MiB
// (aten/src/ATen/cuda/CublasHandlePool.cpp @ 26a39059, L147-150, L186).
constexpr double kCublasWorkspaceBytes = 4096.0 * 1024 * 2 + 16.0 * 1024 * 8 + kMiB;

// ---- NCCL (src @ v2.21.5-1) ------------------------------------------
// One connection's buffers: Simple 4 MiB (DEFAULT_BUFFSIZE), LL128
// 4,915,200 B, LL 512 KiB (init.cc L542-544), 9.19 MiB in all, split
// between the receiving and the sending GPU, each side rounded up to 2 MiB
// (CUDA_IPC_MIN, comm.h L32; transport/p2p.cc L356, L421): 10 MiB on the
// receiver and 2 on the sender, or 6 and 6 in the A100's P2P read mode.
// A rank holds one send and one receive side per ring channel: 12 MiB.
constexpr double kBytesPerConnectedChannel = 12 * kMiB;
// The tree's up and down connections (init.cc L1270-1271) are new ones
// only where a tree neighbour is not a ring neighbour (transport.cc L48):
// never with two ranks; counted once more with three or more. Against
// NVIDIA/nccl#964 (4x A100 NVLink, 24 channels: 544 MB a 2-rank and 688 MB
// a 3+-rank communicator) this gives 302 and 604 MB.
constexpr int kMaxCollectiveChannels = 24;
// Send/recv channels per peer inside a node: 2 x the NVLink bandwidth over
// one link's (graph/paths.cc L706-708), rounded up to a power of two and
// capped at NCCL_MAX_P2P_NCHANNELS, 32 (L763); 2 over PCIe. A first
// send/recv to a peer connects all of them (enqueue.cc L1936-1951), so an
// all-to-all connects every peer: 8x H100 grew from 1.06 to 4.34 GB after
// its first all_to_all (NVIDIA/nccl#1685; 7 peers x 32 x 12 MiB = 2.8 GB).
constexpr int kMaxP2pChannels = 32;
// Across nodes, sends and receives share one pool per communicator:
// channels x NCCL_SHARED_STEPS (16) x the network chunk, 128 KiB
// (transport/net.cc L501, init.cc L549).
constexpr double kSharedPoolBytesPerChannel = 16 * 128 * kKiB;
// One NVLink (generations 2-4) carries 25 GB/s a direction.
constexpr double kNvlinkBidirPerLink = 50e9;

// ---- The caching allocator ---------------------------------------------
// Blocks PyTorch's caching allocator holds beyond its live tensors, as a
// share of them. With the same shapes every step the freed blocks serve
// the next step's requests: 5% (assumption; 3-10% measured with fixed
// shapes, tests/data/memory_overheads.md item 4). With shapes that vary
// (AllocationsVary) a request larger than every cached block takes a new
// segment while the smaller blocks stay cached: GMLake (ASPLOS'24, arXiv
// 2401.08156) measured 15% of the reserved memory lost so on average over
// eight LLM fine-tunes (DeepSpeed ZeRO-3, LoRA, recompute) on A100-80GB,
// that is 0.15 / 0.85 of the live tensors; torchtune#1185 saw a Llama-3-8B
// QLoRA's peak fall 34% with expandable segments. Before it fails a
// request the allocator frees the cached segments that hold no live block
// and retries (CUDACachingAllocator.cpp: release_available_cached_blocks,
// then release_cached_blocks); blocks stranded inside segments still in
// use it cannot free, which is what expandable segments address. The
// model assumes the share beyond the fixed-shape 5% is of the first kind:
// a cache that grows where memory allows (FrameworkMemory::allocator_cache),
// in what nvidia-smi shows, not in what the job needs (an assumption; the
// report's thin-headroom warning names fragmentation). DeepSpeed's 530B
// ZeRO-3 run at micro-batch 8 on A100-80GB (tests/data/deepspeed_scale.csv
// line 15) ran; the model needs 74.7 GiB for it so, 83.6 with the whole
// 15% held.
constexpr double kAllocatorReserveFixed = 0.05;
constexpr double kAllocatorReserveVarying = 0.15 / (1 - 0.15);

// NVLinks per GPU (at most 64: past the channel caps below it changes
// nothing, and the cast stays defined for any catalog figure).
int NvlinkLinks(const NodeSpec& n) {
  return static_cast<int>(std::clamp(n.gpu.nvlink_bidir.value() / kNvlinkBidirPerLink + 0.5, 0.0, 64.0));
}

int PowerOfTwoAtLeast(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

// Channels a collective communicator of this node's GPUs runs: on an
// NVSwitch node two per NVLink up to 24 (nccl-tests#100: 24 on 8x A100,
// 12 links; aws-do-eks's p5 log: 24 on 8x H100, 18 links; NVIDIA/nccl#892:
// 16 on 8x H800, 8 links); 2 over PCIe (nccl-tests#307, 8x RTX 4090).
int CollectiveChannels(const NodeSpec& n) {
  if (n.intra_kind == IntraKind::kNvswitch) return std::min(kMaxCollectiveChannels, std::max(2, 2 * NvlinkLinks(n)));
  return 2;
}

int P2pChannelsPerPeer(const NodeSpec& n) {
  if (n.intra_kind == IntraKind::kNvswitch)
    return std::min(kMaxP2pChannels, PowerOfTwoAtLeast(std::max(2, 2 * NvlinkLinks(n))));
  return 2;
}

// Without peer-to-peer access (GeForce drivers), NCCL's SHM transport puts
// its buffers in host memory (transport/shm.cc L88-91): none on the GPU.
bool BuffersOnTheGpu(const NodeSpec& n) { return n.intra_kind == IntraKind::kNvswitch || n.pcie.p2p; }

// Bytes on one rank of a collective communicator of `ranks`.
double CollectiveBytes(const NodeSpec& n, int ranks) {
  if (ranks < 2) return 0;
  return CollectiveChannels(n) * kBytesPerConnectedChannel * (ranks == 2 ? 1 : 2);
}

// Other members of a group of `size` ranks `stride` GPUs apart on the
// node of its first (groups start at node boundaries: the layout's sizes
// divide or are multiples of the node's GPUs).
int PeersOnNode(int stride, int size, int gpus_per_node) {
  if (stride >= gpus_per_node) return 0;
  return std::min(size, gpus_per_node / stride) - 1;
}

// Bytes on one rank for send/recv to `peers` peers `stride` GPUs apart.
double SendRecvBytes(const NodeSpec& n, int peers, int stride, int group) {
  if (peers <= 0) return 0;
  const int near = std::min(peers, PeersOnNode(stride, group, n.gpus_per_node));
  const int channels = P2pChannelsPerPeer(n);
  double bytes = near * channels * kBytesPerConnectedChannel;
  if (peers > near) bytes += channels * kSharedPoolBytesPerChannel;
  return bytes;
}

}  // namespace

Bytes NcclBufferBytes(const Scenario& s) {
  const NodeSpec& n = s.cluster.node;
  const ParallelSpec& p = s.parallel;
  if (!BuffersOnTheGpu(n) || s.cluster.gpus() < 2) return Bytes(0);
  double bytes = CollectiveBytes(n, p.tp) + CollectiveBytes(n, p.context_group);
  // Data parallelism: one group, or under HSDP its shard and replica groups.
  if (p.zero == 3 && p.hsdp > 0)
    bytes += CollectiveBytes(n, p.hsdp) + CollectiveBytes(n, p.dp / p.hsdp);
  else
    bytes += CollectiveBytes(n, p.dp);
  if (p.ep > 1) {  // the token all-to-all, and the experts' own data-parallel group
    bytes += SendRecvBytes(n, p.ep - 1, p.etp(), p.ep);
    bytes += CollectiveBytes(n, p.tp * p.dp / (p.etp() * p.ep));
  }
  if (p.pp > 1)  // a middle stage's two neighbours, a stage's GPUs apart
    bytes += SendRecvBytes(n, std::min(2, p.pp - 1), p.tp * p.dp, p.pp);
  return Bytes(bytes);
}

bool AllocationsVary(const Scenario& s) {
  const bool module_gathers = s.parallel.zero == 3 && s.parallel.dp > 1 &&
                              TraitsOf(s.training.stack).gather == Zero3Gather::kPerModule;
  return module_gathers || (PadsToLongest(s.training) && s.training.sample_len_cv > 0);
}

FrameworkMemory EstimateFrameworkMemory(const Scenario& s, Bytes live) {
  FrameworkMemory f;
  f.cuda_context = Bytes(kCudaContextBytes + kCublasWorkspaceBytes);
  f.nccl_buffers = NcclBufferBytes(s);
  f.allocator_reserve = Bytes(kAllocatorReserveFixed * live.value());
  if (AllocationsVary(s)) f.allocator_cache = Bytes((kAllocatorReserveVarying - kAllocatorReserveFixed) * live.value());
  return f;
}

}  // namespace pf
