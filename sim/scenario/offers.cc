#include "sim/scenario/offers.h"

#include <algorithm>

#include "sim/scenario/catalog.h"

namespace pf {
namespace {

// Money in the catalog and in scenarios: an amount with its currency unit.
// Preflight bills in USD only (one currency per bill needs no exchange
// rate); a bare number is refused by Quantity with that advice.
Usd Money(const YamlView& v, bool allow_zero) { return Usd(v.Quantity(Dimension::kUsd, allow_zero)); }

// Text fields that document a figure: checked, kept as the source.
std::string Documented(const YamlView& v, bool catalog) {
  std::string out;
  if (v.Has("source")) out = v.Get("source").Name(4096);
  if (v.Has("as_of")) out += (out.empty() ? "" : ", ") + std::string("as of ") + v.Get("as_of").Name(64);
  if (catalog && out.empty()) v.Fail("needs source (and as_of): every catalog price names where it comes from");
  return out;
}

std::vector<std::string> Names(const std::map<std::string, Offer>& m) {
  std::vector<std::string> out;
  for (const auto& [k, _] : m) out.push_back(k);
  return out;
}

}  // namespace

Rate ParseRate(const YamlView& v, PriceMode mode, bool catalog, std::vector<std::string> keys) {
  for (const char* k : {"per_node_hour", "per_gpu_hour", "as_of", "source", "example"}) keys.push_back(k);
  if (mode == PriceMode::kReserved) keys.push_back("term_days");
  v.ExpectKeys(keys);
  Rate r;
  if (v.Has("per_gpu_hour") == v.Has("per_node_hour"))
    (v.Has("per_gpu_hour") ? v.Get("per_node_hour") : v).Fail("give per_node_hour or per_gpu_hour (e.g. 16USD), exactly one");
  r.per_gpu = v.Has("per_gpu_hour");
  r.per_node_hour = Money(v.Get(r.per_gpu ? "per_gpu_hour" : "per_node_hour"), false);
  // A term: one day (an AWS Capacity Block) to three years (the longest
  // reserved-instance term).
  if (v.Has("term_days")) r.term_hours = 24.0 * v.Get("term_days").Int(1, 3 * 366);
  if (v.Has("example")) r.example = v.Get("example").Bool();
  r.source = Documented(v, catalog);
  return r;
}

StoragePrice ParseStoragePrice(const YamlView& v, bool catalog) {
  v.ExpectKeys({"per_gb_month", "get_per_1k", "put_per_1k", "egress_per_gb", "as_of", "source", "example"});
  StoragePrice p;
  if (v.Has("per_gb_month")) p.per_gb_month = Money(v.Get("per_gb_month"), true);
  if (v.Has("get_per_1k")) p.get_per_1k = Money(v.Get("get_per_1k"), true);
  if (v.Has("put_per_1k")) p.put_per_1k = Money(v.Get("put_per_1k"), true);
  if (v.Has("egress_per_gb")) p.egress_per_gb = Money(v.Get("egress_per_gb"), true);
  if (v.Has("example")) p.example = v.Get("example").Bool();
  p.source = Documented(v, catalog);
  return p;
}

const std::map<std::string, Provider>& Providers() {
  static const std::map<std::string, Provider> providers = [] {
    YamlView all = CatalogSection("offers.yaml", {"providers", "offers"}, "providers");
    std::map<std::string, Provider> out;
    for (const auto& name : all.Keys()) {
      YamlView p = all.Get(name);
      p.ExpectKeys({"storage"});
      Provider& pr = out[name];
      if (!p.Has("storage")) continue;
      YamlView st = p.Get("storage");
      for (const auto& kind : st.Keys()) {
        YamlView k = st.Get(kind);
        const auto parsed = FromString<StorageKind>(kind);
        if (!parsed || *parsed == StorageKind::kLocalNvme || *parsed == StorageKind::kPageCache)
          st.Find(kind).Fail("\"" + kind + "\" is not a priced storage kind (accepted: object_store, parallel_fs, nfs; "
                             "local NVMe and page cache are part of the node price)");
        pr.storage.emplace_back(*parsed, ParseStoragePrice(k, true));
      }
    }
    return out;
  }();
  return providers;
}

const std::map<std::string, Offer>& Offers() {
  static const std::map<std::string, Offer> offers = [] {
    YamlView all = CatalogSection("offers.yaml", {"providers", "offers"}, "offers");
    std::map<std::string, Offer> out;
    std::vector<std::string> providers;
    for (const auto& [k, _] : Providers()) providers.push_back(k);
    const std::vector<std::string> nodes = BundledNodes();
    for (const auto& name : all.Keys()) {
      YamlView v = all.Get(name);
      v.ExpectKeys({"provider", "region", "node", "on_demand", "spot", "reserved"});
      Offer o;
      o.provider = v.Get("provider").Choice(providers);
      o.region = v.Get("region").Name(64);
      o.node = v.Get("node").Choice(nodes);
      for (const auto& [mode, key] : NamesOf(PriceMode{}))
        if (v.Has(key)) o.modes.emplace_back(mode, ParseRate(v.Get(key), mode, true, {}));
      if (o.modes.empty()) v.Fail("needs a price: on_demand, spot or reserved");
      out[name] = o;
    }
    return out;
  }();
  return offers;
}

PriceSpec ParsePrice(const YamlView& v, const ClusterSpec& cluster) {
  const std::vector<std::string> keys = {"offer", "mode", "storage", "term_days"};
  v.ExpectKeys({"offer", "mode", "per_node_hour", "per_gpu_hour", "term_days", "storage", "source", "as_of"});
  PriceSpec p;
  p.enabled = true;
  const int gpus = cluster.node.gpus_per_node;
  if (v.Has("mode")) p.mode = v.Get("mode").Enum<PriceMode>();
  auto per_node = [&](Rate r) {
    if (r.per_gpu) r.per_node_hour = r.per_node_hour * double(gpus);
    return r;
  };
  if (v.Has("offer")) {
    for (const char* key : {"per_node_hour", "per_gpu_hour", "term_days"})
      if (v.Has(key)) v.Get(key).Fail("given with an offer, whose catalog entry sets the rate: give offer or a rate, not both");
    YamlView ov = v.Get("offer");
    p.offer = ov.Name(64);
    const auto it = Offers().find(p.offer);
    if (it == Offers().end())
      ov.Fail("unknown offer \"" + Shown(p.offer) + "\"" + SuggestionSuffix(p.offer.substr(0, 64), Names(Offers())) +
              " in topologies/offers.yaml");
    const Offer& o = it->second;
    if (o.node != cluster.node.name) {
      std::string same;
      for (const auto& [k, other] : Offers())
        if (other.node == cluster.node.name) same += (same.empty() ? "" : ", ") + k;
      ov.Fail("offer \"" + p.offer + "\" rents " + o.node + " nodes, but the cluster's nodes are " + cluster.node.name +
              (same.empty() ? " (no offer rents those: give per_node_hour instead)" : " (offers of those: " + same + ")"));
    }
    p.provider = o.provider, p.region = o.region;
    for (const auto& [mode, rate] : o.modes) p.modes.emplace_back(mode, per_node(rate));
    if (!p.Find(p.mode)) {
      std::string has;
      for (const auto& [mode, _] : o.modes) has += (has.empty() ? "" : ", ") + std::string(ToString(mode));
      (v.Has("mode") ? v.Get("mode") : ov)
          .Fail("offer \"" + p.offer + "\" has no " + ToString(p.mode) + " price (it has: " + has + ")");
    }
    const auto& prov = Providers().at(o.provider);
    for (const StorageTier& t : cluster.storage)
      for (const auto& [kind, price] : prov.storage)
        if (kind == t.kind) p.storage.emplace_back(t.name, price);
  } else {
    if (v.Has("term_days") && p.mode != PriceMode::kReserved)
      v.Get("term_days").Fail("a term is for mode: reserved (the scenario's mode is " + std::string(ToString(p.mode)) + ")");
    Rate r = per_node(ParseRate(v, p.mode, false, keys));
    p.modes.emplace_back(p.mode, r);
  }
  if (v.Has("storage")) {
    YamlView st = v.Get("storage");
    std::vector<std::string> tiers;
    for (const StorageTier& t : cluster.storage) tiers.push_back(t.name);
    for (const auto& tier : st.Keys()) {
      if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end())
        st.Find(tier).Fail("\"" + Shown(tier) + "\" is not one of the cluster's storage tiers" +
                           SuggestionSuffix(tier.substr(0, 64), tiers));
      StoragePrice price = ParseStoragePrice(st.Get(tier), false);
      auto old = std::find_if(p.storage.begin(), p.storage.end(), [&](const auto& e) { return e.first == tier; });
      if (old != p.storage.end()) old->second = price;
      else p.storage.emplace_back(tier, price);
    }
  }
  return p;
}

}  // namespace pf
