// Where one step's time went on an average GPU (AccountTime, accounting.h).
#pragma once

#include "sim/base/units.h"

namespace pf {

// Average over GPUs of where one step's wall-clock time goes; the fields add
// up to the step time.
struct Breakdown {
  Seconds compute;    // forward, backward, recompute kernels
  Seconds host_wait;  // of compute, the GPU idle while the host issues the kernels (not in total())
  Seconds optimizer;  // optimizer step
  Seconds tp_comm;    // exposed tensor-parallel communication
  Seconds ep_comm;    // exposed expert-parallel all-to-alls
  Seconds cp_comm;    // exposed context-parallel K/V exchange
  Seconds pp_comm;    // exposed pipeline sends
  Seconds dp_comm;    // exposed data-parallel / ZeRO communication
  Seconds io;         // exposed host <-> GPU transfers (offload)
  Seconds bubble;     // waiting for other pipeline stages
  Seconds idle;       // waiting for peers for any other reason
  Seconds data_stall; // waiting for the input pipeline (read, decode, copy)
  Seconds total() const {
    return compute + optimizer + tp_comm + ep_comm + cp_comm + pp_comm + dp_comm + io + bubble + idle + data_stall;
  }
};

}  // namespace pf
