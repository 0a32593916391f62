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
// is 0 or a micro-batch holds one sample. With `group` samples sorted by
// length before they are cut into micro-batches (LengthGroupSamples), the
// mean over a group's micro-batches of their longest.
// REQUIRES: 0 < t.sample_len <= t.seq_len, t.micro_batch >= 1.
double ExpectedLongestSample(const TrainingSpec& t, int group = 0);

// The samples sorted together under training.group_by_length, 0 when
// off: N micro-batches' for an integer N; for `true` the Trainer's
// LengthGroupedSampler, whose mega-batches hold 50 of the batch it is
// given (transformers trainer_pt_utils.py get_length_grouped_indices:
// mega_batch_mult = min(len(lengths) // (batch_size * 4), 50), 50 for any
// dataset of 200 batches or more), and Trainer._get_train_sampler gives it
// train_batch_size x gradient_accumulation_steps: 50 x global_batch / dp
// samples, whose micro-batches accelerate deals to the data-parallel ranks
// in turn. At most kMostGroupBatches micro-batches (and at most
// kMostGroupSamples samples): sorted groups that large pad a micro-batch
// by under a token at Alpaca's spread (Padding tests); at least two.
int LengthGroupSamples(const Scenario& s);
inline constexpr int kMostGroupBatches = 1024;
inline constexpr int kMostGroupSamples = 1 << 20;

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
