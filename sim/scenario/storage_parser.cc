#include "sim/scenario/storage_parser.h"

#include <string>

namespace pf {

// Servers in all shared tiers together: each is a zone of the SimGrid
// platform (a large parallel file system has hundreds).
constexpr int kMaxServers = 4096;

std::vector<StorageTier> ParseStorage(const YamlView& v) {
  std::vector<StorageTier> tiers;
  int servers = 0;
  for (const YamlView& t : v.Items(64)) {
    t.ExpectKeys({"name", "kind", "servers", "read", "write", "network", "latency", "capacity", "source"});
    StorageTier s;
    s.kind = t.Get("kind").Enum<StorageKind>();
    s.name = t.Has("name") ? t.Get("name").Name(64) : ToString(s.kind);
    for (const StorageTier& earlier : tiers)
      if (earlier.name == s.name)
        (t.Has("name") ? t.Get("name") : t.Get("kind"))
            .Fail("a second tier named \"" + Shown(s.name) + "\"; give each tier its own name");
    s.read = t.Get("read").AsBandwidth();
    // Page cache writes go to host memory as fast as reads come from it.
    s.write = t.Has("write") || s.kind != StorageKind::kPageCache ? t.Get("write").AsBandwidth() : s.read;
    if (t.Has("latency")) s.latency = t.Get("latency").AsSeconds(true);
    if (t.Has("capacity")) s.capacity = t.Get("capacity").AsBytes();
    if (s.shared()) {
      s.servers = t.Has("servers") ? static_cast<int>(t.Get("servers").Int(1, kMaxServers)) : 1;
      servers += s.servers;
      if (servers > kMaxServers)
        (t.Has("servers") ? t.Get("servers") : t.Get("kind"))
            .Fail(std::to_string(servers) + " storage servers in all; at most " + std::to_string(kMaxServers) +
                  " across the cluster's shared tiers");
      s.network = t.Get("network").AsBandwidth();
    } else {
      for (const char* key : {"servers", "network"})
        if (t.Has(key))
          t.Get(key).Fail(std::string("given, but a ") + ToString(s.kind) +
                          " tier is inside each node (servers and network are for shared tiers)");
    }
    tiers.push_back(s);
  }
  return tiers;
}

}  // namespace pf
