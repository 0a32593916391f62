#include "sim/scenario/catalog.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/scenario/offers.h"
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
std::vector<std::string> BundledNodes() { return Stems("topologies", {"gpus", "cpus", "offers"}); }
std::vector<std::string> BundledClusters() { return Stems("topologies/clusters", {}); }
std::string ClusterPath(const std::string& name) {
  return DataDir() + "/topologies/clusters/" + name + ".yaml";
}
std::string ModelPath(const std::string& name) { return DataDir() + "/models/" + name + ".yaml"; }
std::string NodePath(const std::string& name) { return DataDir() + "/topologies/" + name + ".yaml"; }

YamlView CatalogSection(const std::string& file, const std::vector<std::string>& keys,
                               const std::string& section) {
  std::string path = DataDir() + "/topologies/" + file;
  auto source = std::make_shared<YamlSource>(YamlSource{path, {}, {}});
  YamlView root(LoadYamlFile(path), "", source);
  root.ExpectKeys(keys);
  return root.Get(section);
}

int NodeGpus(const std::string& name) {
  auto source = std::make_shared<YamlSource>(YamlSource{NodePath(name), {}, {}});
  return static_cast<int>(YamlView(LoadYamlFile(NodePath(name)), "", source).Get("gpus_per_node").Int(1, 1024));
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
    std::map<std::string, NodePrice> out;
    for (const auto& [name, offer] : Offers()) {
      const Rate* r = nullptr;
      for (const auto& [mode, rate] : offer.modes)
        if (mode == PriceMode::kOnDemand) r = &rate;
      if (!r) continue;
      // Per node: a per-GPU rate times the node's GPUs (read from its file).
      const double per_node = r->per_node_hour.value() * (r->per_gpu ? NodeGpus(offer.node) : 1);
      auto it = out.find(offer.node);
      if (it == out.end() || per_node < it->second.per_node_hour)
        out[offer.node] = {per_node, "offer " + name + ": " + (r->example ? "example, " : "") + r->source, name};
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
