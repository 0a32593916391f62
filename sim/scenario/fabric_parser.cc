#include "sim/scenario/fabric_parser.h"

#include <cmath>
#include <string>

namespace pf {

FabricSpec ParseFabric(const YamlView& v, const ClusterSpec& c) {
  v.ExpectKeys({"kind", "radix", "oversubscription", "levels", "switch_latency", "placement", "source"});
  FabricSpec f;
  f.kind = v.Get("kind").Enum<FabricKind>();
  f.switch_latency = v.Get("switch_latency").AsSeconds(true);
  if (v.Has("placement")) f.placement = v.Get("placement").Enum<Placement>();
  if (v.Has("levels")) f.levels = static_cast<int>(v.Get("levels").Int(2, 3));
  if (v.Has("radix")) {
    // Largest single-chip switches: 64 ports of 800G (NVIDIA Quantum-X800,
    // Spectrum-X800), 512 ports of 100G on 51.2 Tb/s chips.
    f.radix = static_cast<int>(v.Get("radix").Int(2, 1024));
  }
  if (v.Has("oversubscription")) {
    const YamlView o = v.Get("oversubscription");
    if (f.kind != FabricKind::kFatTree) o.Fail("given, but a rail-optimized fabric is non-blocking (use kind: fat_tree)");
    f.oversubscription = o.Number();
    if (!(f.oversubscription >= 1) || f.oversubscription > 64)
      o.Fail("\"" + o.Str() + "\" is the ratio of a leaf's node ports to its spine ports; accepted: 1 (non-blocking) to 64");
  }
  if (f.kind == FabricKind::kFatTree && f.radix > 0) {
    const int node_ports = static_cast<int>(f.radix * f.oversubscription / (f.oversubscription + 1));
    if (node_ports < c.node.nics)
      v.Get("radix").Fail(std::to_string(f.radix) + " ports at oversubscription " +
                          std::to_string(f.oversubscription).substr(0, 4) + " leave " + std::to_string(node_ports) +
                          " node ports per leaf, fewer than one node's " + std::to_string(c.node.nics) + " NICs");
  }
  return f;
}

}  // namespace pf
