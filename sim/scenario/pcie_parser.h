// YAML -> spec for the inside of a node below its NVLink: the `pcie:`
// section (link generation and lanes per GPU, switches, sockets, peer-to-
// peer) and `nvlink_bridges:`. Every index is checked against the node it
// describes, so a GPU on no switch, a NIC that does not exist or a socket
// past the last is refused at its line.
#pragma once

#include "sim/scenario/yaml_view.h"
#include "sim/spec/spec.h"

namespace pf {

// REQUIRES: n.gpu, n.gpus_per_node and n.nics are set (the defaults come
// from them: the generation from the GPU's catalog entry).
PcieSpec ParsePcie(const YamlView& v, const NodeSpec& n);
// REQUIRES: n.intra_kind and n.gpus_per_node are set.
NvlinkBridges ParseBridges(const YamlView& v, const NodeSpec& n);

}  // namespace pf
