// What the fuzz targets of tests/fuzz/ share: how a finding is reported,
// the oracles that tell an answer from nonsense, and the guard around the
// SimGrid child processes the engine forks.
//
// A target calls the library the way `simulate` does. Bad input must end in
// the documented error (pf::InputError, or std::invalid_argument from the
// engine); anything else is a finding: another exception type, a crash or
// sanitizer report, a hang (libFuzzer -timeout), a blow-up (-rss_limit_mb,
// -malloc_limit_mb), or an answer that fails an oracle below. A finding
// prints "preflight fuzz finding: <what>" on stderr and aborts, so that
// libFuzzer saves the input and the standalone driver exits non-zero.
#pragma once

#include <exception>
#include <string>

#include "sim/job/result.h"
#include "sim/model/memory_model.h"
#include "sim/proto/workload.pb.h"

namespace pf::fuzz {

// Prints "preflight fuzz finding: `what`", calls the cleanup set by
// SetCleanup (if any) and aborts.
[[noreturn]] void Finding(const std::string& what);

// `cleanup` runs before a finding aborts (e.g. removes a temporary file).
void SetCleanup(void (*cleanup)());

// Reports the exception being handled (call inside a catch block) as a
// finding, naming its dynamic type and what(): "unexpected
// std::out_of_range from LoadScenario: vector::_M_range_check: ...".
[[noreturn]] void UnexpectedException(const char* where);

// With PF_FUZZ_VERBOSE=1 in the environment, prints `line` on stderr (what
// an input came to: refused with which message, or simulated); else nothing.
void Note(const std::string& line);

// Oracles: each calls Finding naming the field and value unless every
// quantity is finite and within its range.
//   memory: every part >= 0, the total the sum of the parts, capacity > 0,
//     fits == (total <= capacity).
//   workload: built for `gpus` GPUs; every dependency names an earlier task;
//     every GPU index < gpus; sizes, durations, FLOPs finite and >= 0.
//   result: its memory as above; step time finite and > 0; throughput,
//     MFU, HFU, every part of the breakdown, job time and cost finite and
//     >= 0. When `built` (the workload came from BuildWorkload, not from a
//     file), also MFU <= HFU <= 1, scaling efficiency <= 1, and the
//     breakdown adds up to the step time.
void CheckMemory(const MemoryBreakdown& m);
void CheckWorkload(const preflight::Workload& w, int gpus);
void CheckResult(const Result& r, bool built);

// Installs, once per process, fork handlers for the SimGrid child processes
// that pf::RunWorkload forks: the child dies with its parent (a fuzzer that
// stops on a timeout leaves no orphan running), and under libFuzzer the
// child's coverage counters are copied back to the parent after the run
// (MergeChildCoverage), so that the fuzzer sees the engine's code too.
// Environment: PF_FUZZ_CHILD_MEMORY_MB (2048) caps how much the child's data
// may grow; PF_FUZZ_CHILD_COVERAGE=1 adds the child's coverage (off by default).
void GuardSimGridChildren();

// Caps how much more memory this process may take, in MiB: RLIMIT_DATA set
// to what it uses now plus `mb` (so that ASan's up-front shadow reservation
// does not count). Past it, an allocation fails: std::bad_alloc, or ASan's
// out-of-memory report. For the standalone driver, which has no
// -rss_limit_mb, and for the SimGrid children.
void LimitMemoryGrowth(long mb);

// Adds what the last child process covered to this process's counters
// (no-op outside libFuzzer). Call after each call that may fork.
void MergeChildCoverage();

}  // namespace pf::fuzz
