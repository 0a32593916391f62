// How efficiently NCCL uses the links: achieved fraction of line rate per
// link class, and the extra time of messages too small to reach it. Each
// figure is a measurement from tests/data/ (tests/model/reference_data_test.cc
// holds them together). No SimGrid.
#pragma once

#include "sim/base/units.h"

namespace pf {

// Achieved fraction of line rate for large messages, per link class; the
// platform gives SimGrid links line rate x this.
double NvlinkEfficiency();
double NicEfficiency();
double PcieEfficiency();

// Extra time factor (>= 1) for a collective of `message_bytes` over `ranks`
// GPUs (1 for a point-to-point send): NCCL reaches its large-message
// bandwidth only when each ring step moves a large chunk. Multiplies flow
// bytes.
double MessageSizePenalty(Bytes message, int ranks);

}  // namespace pf
