#include "sim/scenario/pcie_parser.h"

#include <string>

namespace pf {
namespace {

std::string Str(long long x) { return std::to_string(x); }

int Lanes(const YamlView& v) {
  const long long lanes = v.Int(1, 32);
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
    v.Fail(Str(lanes) + " lanes; accepted: 1, 2, 4, 8, 16, 32");
  return static_cast<int>(lanes);
}

// An index into `count` things called `what` ("GPU", "NIC"), listed at
// most once across `seen`.
int Index(const YamlView& v, int count, const char* what, std::vector<std::string>& seen,
          const std::string& owner, const char* rule) {
  const long long i = v.Int(0, 1 << 20);
  if (i >= count)
    v.Fail(std::string(what) + " " + Str(i) + ", but the node has " + Str(count) + " " + what +
           (count == 1 ? "" : "s") + " (0.." + Str(count - 1) + ")");
  if (!seen[i].empty())
    v.Fail(std::string(what) + " " + Str(i) + " is already in " + seen[i] + "; " + rule);
  seen[i] = owner;
  return static_cast<int>(i);
}

constexpr const char* kOneSwitch = "each sits behind one switch";
constexpr const char* kOneBridge = "a GPU takes one bridge";

}  // namespace

PcieSpec ParsePcie(const YamlView& v, const NodeSpec& n) {
  v.ExpectKeys({"gen", "lanes", "latency", "p2p", "sockets", "inter_socket", "host_memory",
                "uplink_lanes", "switches"});
  PcieSpec p;
  p.gen = v.Has("gen") ? static_cast<int>(v.Get("gen").Int(1, 6)) : n.gpu.pcie_gen;
  if (v.Has("lanes")) p.lanes = Lanes(v.Get("lanes"));
  p.latency = v.Get("latency").AsSeconds(true);
  if (v.Has("p2p")) p.p2p = v.Get("p2p").Bool();
  if (v.Has("sockets")) p.sockets = static_cast<int>(v.Get("sockets").Int(1, 8));
  if (p.sockets > 1) p.inter_socket = v.Get("inter_socket").AsBandwidth();
  if (!p.p2p) p.host_memory = v.Get("host_memory").AsBandwidth();
  if (v.Has("uplink_lanes")) p.uplink_lanes = Lanes(v.Get("uplink_lanes"));
  if (!v.Has("switches")) return p;
  const std::vector<YamlView> switches = v.Get("switches").Items(1024);
  if (switches.empty()) return p;  // [] as none: every device on a root port
  std::vector<std::string> gpu_owner(n.gpus_per_node), nic_owner(n.nics);
  for (const YamlView& sw : switches) {
    sw.ExpectKeys({"socket", "gpus", "nics"});
    PcieSwitch s;
    s.socket = static_cast<int>(sw.Get("socket").Int(0, 1 << 20));
    if (s.socket >= p.sockets)
      sw.Get("socket").Fail("socket " + Str(s.socket) + ", but the node has " + Str(p.sockets) +
                            " socket" + (p.sockets == 1 ? "" : "s") + " (pcie.sockets)");
    const std::string owner = sw.path().substr(sw.path().rfind('.') + 1);
    for (const YamlView& g : sw.Get("gpus").Items(1024))
      s.gpus.push_back(Index(g, n.gpus_per_node, "GPU", gpu_owner, owner, kOneSwitch));
    if (sw.Has("nics"))
      for (const YamlView& r : sw.Get("nics").Items(64))
        s.nics.push_back(Index(r, n.nics, "NIC", nic_owner, owner, kOneSwitch));
    p.switches.push_back(s);
  }
  for (int g = 0; g < n.gpus_per_node; ++g)
    if (gpu_owner[g].empty())
      v.Get("switches").Fail("GPU " + Str(g) + " is behind no switch; list every GPU of the node (0.." +
                             Str(n.gpus_per_node - 1) + ") under one switch, or give no switches");
  return p;
}

NvlinkBridges ParseBridges(const YamlView& v, const NodeSpec& n) {
  v.ExpectKeys({"pairs", "bandwidth"});
  if (n.intra_kind != IntraKind::kPcie)
    v.Fail("NVLink bridges join GPUs of a PCIe node; this node's interconnect is an NVSwitch");
  NvlinkBridges b;
  b.bandwidth = v.Get("bandwidth").AsBandwidth();
  std::vector<std::string> owner(n.gpus_per_node);
  for (const YamlView& pair : v.Get("pairs").Items(512)) {
    const auto ends = pair.Items(2);
    if (ends.size() != 2) pair.Fail("a bridge joins two GPUs, e.g. [0, 1]");
    const std::string name = "bridge " + pair.path().substr(pair.path().rfind('.') + 1);
    b.pairs.emplace_back(Index(ends[0], n.gpus_per_node, "GPU", owner, name, kOneBridge),
                         Index(ends[1], n.gpus_per_node, "GPU", owner, name, kOneBridge));
  }
  return b;
}

}  // namespace pf
