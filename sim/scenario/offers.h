// The instance catalog topologies/offers.yaml: what a cloud or rental
// provider charges for a node (on demand, spot, reserved; per node- or
// GPU-hour) and for its storage tiers, each figure dated and sourced, or
// marked as a user-editable example. A scenario names an offer
// (price: {offer: NAME, mode: spot}) or states its own price; both are
// parsed here (ParsePrice) into the scenario's PriceSpec.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

// One node offer, its rates per mode as stated (per_gpu: per GPU-hour).
struct Offer {
  std::string provider, region, node;
  std::vector<std::pair<PriceMode, Rate>> modes;  // Rate::per_node_hour holds the stated amount
};
struct Provider {
  std::vector<std::pair<StorageKind, StoragePrice>> storage;
};

const std::map<std::string, Offer>& Offers();
const std::map<std::string, Provider>& Providers();

// A rate mapping: {per_node_hour | per_gpu_hour, term_days (reserved),
// as_of, source, example}; amounts keep their stated unit (Rate::per_gpu).
// `keys`: other keys the mapping may hold.
Rate ParseRate(const YamlView& v, PriceMode mode, bool catalog, std::vector<std::string> keys);

// A storage price mapping: {per_gb_month, get_per_1k, put_per_1k,
// egress_per_gb, as_of, source, example}.
StoragePrice ParseStoragePrice(const YamlView& v, bool catalog);

// The scenario's `price:` section, for its cluster: an offer of the
// catalog whose node is the cluster's, with a mode it offers, or an
// explicit rate; storage prices by tier (the offer's provider's for its
// kinds, a scenario's own `storage:` entries over them).
PriceSpec ParsePrice(const YamlView& v, const ClusterSpec& cluster);

}  // namespace pf
