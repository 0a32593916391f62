#include "sim/scenario/catalog.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/scenario/spec_parsers.h"
#include "sim/scenario/yaml_view.h"

namespace pf {
namespace fs = std::filesystem;

std::string DataDir() {
  if (const char* env = std::getenv("PREFLIGHT_DATA_DIR"); env && *env) return env;
  return PREFLIGHT_SOURCE_DIR;
}

static std::vector<std::string> Stems(const std::string& dir, const std::vector<std::string>& skip) {
  std::vector<std::string> out;
  std::error_code ec;
  // Regular files only: a symbolic link could lead out of the data folder.
  for (const auto& e : fs::directory_iterator(DataDir() + "/" + dir, ec))
    if (e.is_regular_file(ec) && !e.is_symlink(ec) && e.path().extension() == ".yaml" &&
        std::find(skip.begin(), skip.end(), e.path().stem().string()) == skip.end())
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> BundledModels() { return Stems("models", {}); }
std::vector<std::string> BundledNodes() { return Stems("topologies", {"gpus", "cpus", "prices"}); }
std::vector<std::string> BundledClusters() { return Stems("topologies/clusters", {}); }
std::string ClusterPath(const std::string& name) {
  return DataDir() + "/topologies/clusters/" + name + ".yaml";
}
std::string ModelPath(const std::string& name) { return DataDir() + "/models/" + name + ".yaml"; }
std::string NodePath(const std::string& name) { return DataDir() + "/topologies/" + name + ".yaml"; }

// The `section` mapping of a catalog file under topologies/, whose top-level
// keys must be among `keys`.
static YamlView CatalogSection(const std::string& file, const std::vector<std::string>& keys,
                               const std::string& section) {
  std::string path = DataDir() + "/topologies/" + file;
  auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
  YamlView root(LoadYamlFile(path), "", source);
  root.ExpectKeys(keys);
  return root.Get(section);
}

const std::map<std::string, GpuSpec>& GpuCatalog() {
  static const std::map<std::string, GpuSpec> catalog = [] {
    YamlView gpus = CatalogSection("gpus.yaml", {"gpus"}, "gpus");
    std::map<std::string, GpuSpec> out;
    for (const auto& name : gpus.Keys()) out[name] = ParseGpu(gpus.Get(name), name);
    return out;
  }();
  return catalog;
}

const std::map<std::string, NodePrice>& NodePrices() {
  static const std::map<std::string, NodePrice> prices = [] {
    YamlView nodes = CatalogSection("prices.yaml", {"nodes"}, "nodes");
    std::map<std::string, NodePrice> out;
    for (const auto& name : nodes.Keys()) {
      YamlView v = nodes.Get(name);
      v.ExpectKeys({"per_node_hour", "source"});
      out[name] = {v.Get("per_node_hour").Number(), v.Get("source").Name(4096)};
    }
    return out;
  }();
  return prices;
}

const std::map<std::string, CpuSpec>& CpuCatalog() {
  static const std::map<std::string, CpuSpec> catalog = [] {
    YamlView cpus = CatalogSection("cpus.yaml", {"reference", "cpus"}, "cpus");
    std::map<std::string, CpuSpec> out;
    for (const auto& name : cpus.Keys()) out[name] = ParseCpuModel(cpus.Get(name), name);
    return out;
  }();
  return catalog;
}

}  // namespace pf
