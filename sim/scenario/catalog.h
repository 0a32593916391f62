// Finds bundled data (models/, topologies/) by name from any working
// directory: $PREFLIGHT_DATA_DIR if set, else the source tree the binary was
// built from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

// Root holding models/ and topologies/.
std::string DataDir();

// Names (file stems) of the bundled models / node topologies, sorted.
std::vector<std::string> BundledModels();
std::vector<std::string> BundledNodes();
std::string ModelPath(const std::string& name);  // DataDir()/models/<name>.yaml
std::string NodePath(const std::string& name);   // DataDir()/topologies/<name>.yaml
// Clusters: a node, a node count, a fabric (topologies/clusters/<name>.yaml).
std::vector<std::string> BundledClusters();
std::string ClusterPath(const std::string& name);

// The GPU catalog topologies/gpus.yaml, parsed once (throws InputError).
const std::map<std::string, GpuSpec>& GpuCatalog();
// The cheapest on-demand price of each node the instance catalog
// (topologies/offers.yaml, offers.h) rents: USD per node-hour and the
// offer it comes from.
struct NodePrice {
  double per_node_hour = 0;
  std::string source;
  std::string offer;  // its name in topologies/offers.yaml
};
const std::map<std::string, NodePrice>& NodePrices();

// The `section` mapping of a catalog file under topologies/, whose top-level
// keys must be among `keys`.
YamlView CatalogSection(const std::string& file, const std::vector<std::string>& keys, const std::string& section);

// GPUs of the bundled node `name` (its gpus.count).
int NodeGpus(const std::string& name);

// The CPU catalog topologies/cpus.yaml (cores per socket, per-core speed),
// parsed once; `cores` there is per socket.
const std::map<std::string, CpuSpec>& CpuCatalog();

}  // namespace pf
