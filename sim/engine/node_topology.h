// The links inside one node and the route between any two of its
// endpoints (GPU, the CPU's host memory, the fabric through a NIC), as
// plain data: the platform (platform.cc) builds exactly these links in
// SimGrid, and the collective model (group_paths.h) reads the bottlenecks
// of the same routes. No SimGrid.
//
//   GPU i ─pcie_out─┬─(same switch)──────────────── pcie_in─ GPU j     P2P in a switch
//                   ├─ up(switch) ─[inter-socket]─ down(switch) ─ ...   P2P via root complex
//                   ├─ up ─ host_memory(socket) ─[inter-socket]─ down   P2P off: staged in RAM
//                   └─ [up ─ staging(NIC) ─] ... ─ nic_out ─► fabric    GPUDirect RDMA off
//   NVSwitch:  GPU i ─nvl_out─ nvl_in─ GPU j;   bridge:  GPU i ─bridge(i→j)─ GPU j
#pragma once

#include <string>
#include <vector>

#include "sim/spec/spec.h"

namespace pf {

// One direction of one link: achieved bandwidth (line rate x its class's
// achieved fraction, collectives/nccl.h) and latency.
struct NodeLink {
  std::string name;  // unique within the node
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // s
};

using Route = std::vector<int>;  // indices into NodeTopology::links()

class NodeTopology {
 public:
  explicit NodeTopology(const NodeSpec& n);

  const std::vector<NodeLink>& links() const { return links_; }
  Route GpuToGpu(int i, int j) const;
  Route GpuToCpu(int i) const;
  Route CpuToGpu(int i) const;
  Route GpuToFabric(int i) const;  // through NicOf(i)
  Route FabricToGpu(int i) const;
  // Host memory to and from the fabric, through NIC 0 (storage traffic
  // lands in host memory; nodes with separate storage NICs are not told
  // apart yet).
  Route CpuToFabric() const;
  Route FabricToCpu() const;
  // The NIC GPU i sends through: the NICs behind its switch, shared in
  // order, or (none there, or no switches) rail i x nics / gpus_per_node.
  int NicOf(int i) const { return nic_of_[i]; }
  int SocketOfGpu(int i) const { return gpu_socket_[i]; }
  // The rate each route gets when all of `routes` run at once and every
  // link is split evenly among the routes crossing it.
  double SharedRate(const std::vector<Route>& routes) const;
  // The same per route: the least over its links of bandwidth / routes
  // crossing it.
  std::vector<double> SharedRates(const std::vector<Route>& routes) const;
  // True on an NVSwitch node when no GPU's routes to and from the fabric
  // share a link with another GPU's routes (to the fabric or to host
  // memory): each GPU has its own NVLink port, PCIe path and NIC, so the
  // collectives of GPUs of the same local rank on different nodes form
  // independent lanes.
  bool LanesIndependent() const;

 private:
  int Add(const std::string& name, double bandwidth, double latency);
  Route Up(int sw) const;    // switch sw -> its socket (nothing without a switch)
  Route Down(int sw) const;
  Route Cross(int from_socket, int to_socket) const;

  NodeSpec n_;
  std::vector<NodeLink> links_;
  std::vector<int> pcie_out_, pcie_in_, nvl_out_, nvl_in_, nic_out_, nic_in_, staging_out_, staging_in_;
  std::vector<int> sw_up_, sw_down_, host_memory_;
  std::vector<std::vector<int>> inter_socket_;  // [from][to]
  std::vector<int> bridge_peer_, bridge_out_;   // per GPU: its bridged peer (-1) and link to it
  std::vector<int> gpu_switch_, nic_switch_;    // -1: on a root port
  std::vector<int> gpu_socket_, nic_socket_, nic_of_;
};

// The achieved fraction of a NIC's line rate for its kind (RDMA or TCP
// sockets; collectives/nccl.h).
double AchievedNicFraction(const NodeSpec& n);

}  // namespace pf
