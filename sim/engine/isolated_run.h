// The process boundary around a SimGrid run (internal to sim/engine/; the
// rest of Preflight calls RunWorkload in engine.h). SimGrid 3.32 allows one
// engine per process lifetime, so RunWorkload runs each simulation in a
// forked child that sends its answer back over a pipe as a
// preflight.RunAnswer (sim/proto/run_answer.proto); with
// PREFLIGHT_IN_PROCESS=1 it runs SimGrid in the calling process instead.
// The pieces are declared here so that tests can drive each one.
#pragma once

#include <functional>

#include "sim/engine/engine.h"
#include "sim/proto/run_answer.pb.h"

namespace pf {

// The environment variable that selects the in-process mode ("1": on; unset
// or anything else: one child process per run).
inline constexpr char kInProcessEnv[] = "PREFLIGHT_IN_PROCESS";

// Calls `run` and returns its outcome as an answer: the times, or the error
// it threw (std::invalid_argument -> BAD_INPUT, anything else -> INTERNAL,
// with the exception's message). Never throws.
preflight::RunAnswer AnswerOf(const std::function<TaskTimes()>& run);

// Calls `answer` in a forked child process and returns what the child sent
// over a pipe. When the child dies by a signal, exits with a non-zero status
// or sends no parsable answer, returns an INTERNAL error that says so in
// words, e.g. "the SimGrid run was killed by signal 11 (Segmentation
// fault)". REQUIRES: `answer` does not throw (wrap it in AnswerOf).
// Throws std::runtime_error when pipe() or fork() fails.
preflight::RunAnswer AnswerFromChild(const std::function<preflight::RunAnswer()>& answer);

// The task times of `a`, for a workload of `tasks` tasks. Throws
// std::invalid_argument with the error's message for a BAD_INPUT error,
// std::runtime_error for any other error, and std::runtime_error naming the
// mismatch when `a` holds neither times nor an error, when the number of
// start or end times is not `tasks`, when a time is not finite or when the
// flow count is negative.
TaskTimes TimesFromAnswer(const preflight::RunAnswer& a, int tasks);

}  // namespace pf
