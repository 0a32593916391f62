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

const std::map<std::string, GpuSpec>& GpuCatalog() {
  static const std::map<std::string, GpuSpec> catalog = [] {
    std::string path = DataDir() + "/topologies/gpus.yaml";
    auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
    YamlView root(LoadYamlFile(path), "", source);
    root.ExpectKeys({"gpus"});
    YamlView gpus = root.Get("gpus");
    std::map<std::string, GpuSpec> out;
    for (const auto& name : gpus.Keys()) out[name] = ParseGpu(gpus.Get(name), name);
    return out;
  }();
  return catalog;
}

const std::map<std::string, NodePrice>& NodePrices() {
  static const std::map<std::string, NodePrice> prices = [] {
    std::string path = DataDir() + "/topologies/prices.yaml";
    auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
    YamlView root(LoadYamlFile(path), "", source);
    root.ExpectKeys({"nodes"});
    YamlView nodes = root.Get("nodes");
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
    std::string path = DataDir() + "/topologies/cpus.yaml";
    auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
    YamlView root(LoadYamlFile(path), "", source);
    root.ExpectKeys({"reference", "cpus"});
    YamlView cpus = root.Get("cpus");
    std::map<std::string, CpuSpec> out;
    for (const auto& name : cpus.Keys()) out[name] = ParseCpuModel(cpus.Get(name), name);
    return out;
  }();
  return catalog;
}

}  // namespace pf
