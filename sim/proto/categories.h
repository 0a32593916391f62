// What a task's category says about it, for every stage that reads the
// task graph (the workload check, the accounting).
#pragma once

#include "sim/proto/workload.pb.h"

namespace pf {

// A collective's category: one parallelism's communication, exposed where
// a GPU waits for it.
inline bool IsCommCategory(preflight::Category c) {
  return c == preflight::TP_COMM || c == preflight::EP_COMM || c == preflight::CP_COMM || c == preflight::PP_COMM ||
         c == preflight::DP_COMM;
}

}  // namespace pf
