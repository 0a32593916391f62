// Workload files: a preflight.Workload saved with `simulate --emit-workload`
// and replayed with `--workload`. Reading is the one way in for a workload
// that Preflight did not build itself: it parses the bytes and checks them
// (ValidateWorkload, workload_check.h) against the scenario that replays
// them. Writing is atomic. No SimGrid.
#pragma once

#include <string>

#include "sim/proto/workload.pb.h"
#include "sim/spec/spec.h"

namespace pf {

// Files larger than this are refused unread (the largest bundled
// scenario's workload is 24 MB).
inline constexpr long long kMaxWorkloadFileBytes = 256LL << 20;

// The workload saved in `path`, checked for scenario `s`. Throws InputError
// "path: ...: message" on one line when the file cannot be read, is larger
// than kMaxWorkloadFileBytes, is not a preflight.Workload, or breaks a rule
// of workload_check.h.
preflight::Workload LoadWorkload(const std::string& path, const Scenario& s);

// The same for the file's contents `bytes`; `name` stands for the file in
// messages (tests and fuzzers call this).
preflight::Workload ParseWorkload(const std::string& bytes, const std::string& name, const Scenario& s);

// Writes `w` to `path` atomically: to a new temporary file in the same
// directory, then renamed over `path`, so `path` holds either its old
// contents or all of `w`, never a part. Throws InputError naming `path` and
// the system's reason when it cannot.
void SaveWorkload(const preflight::Workload& w, const std::string& path);

}  // namespace pf
