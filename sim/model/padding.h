// What unpacked samples cost when each micro-batch is padded to its
// longest sample (training.padding: longest): the GPUs compute every
// sequence of a micro-batch at the length of its longest sample. Sample
// lengths are taken as log-normal (a right-skewed, long-tailed shape) with
// the scenario's mean (sample_len) and spread (sample_len_cv), cut at
// seq_len as the tokenizer's cutoff cuts them. Plain arithmetic, no SimGrid.
#pragma once

#include "sim/spec/spec.h"

namespace pf {

// The expected length, in tokens, of the longest of `t.micro_batch`
// samples: E[min(max of b lengths, seq_len)], with lengths log-normal of
// spread sample_len_cv whose mean after the cut at seq_len is sample_len.
// At least sample_len, at most seq_len; sample_len itself when the spread
// is 0 or a micro-batch holds one sample.
// REQUIRES: 0 < t.sample_len <= t.seq_len, t.micro_batch >= 1.
double ExpectedLongestSample(const TrainingSpec& t);

// Whether the step computes shorter sequences than seq_len: packing false,
// padding longest and a sample_len below seq_len.
bool PadsToLongest(const TrainingSpec& t);

// The scenario as the step computes it: where PadsToLongest, every sequence is
// ExpectedLongestSample tokens long (rounded up to whole tokens, and to a
// multiple of 2 x cp under context parallelism) and padded to that;
// otherwise `s` unchanged. The memory verdict keeps `s`: a micro-batch
// whose longest sample reaches seq_len must fit too.
Scenario PaddedView(const Scenario& s);

}  // namespace pf
