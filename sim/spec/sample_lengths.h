// The samples' lengths a scenario describes (training.sample_len, their
// mean, and sample_len_cv, their spread): log-normal, a right-skewed,
// long-tailed shape, cut at seq_len as the tokenizer's cutoff cuts them.
// What padding to a micro-batch's longest sample (model/padding.h) and a
// packer that keeps samples whole leave unused follows from them. Plain
// arithmetic, no YAML, no SimGrid.
#pragma once

namespace pf {

// The log-mean mu of a log-normal of log-sd sigma whose lengths, cut at
// `cut`, average `mean`. REQUIRES: 0 < mean < cut, sigma > 0.
double LogMeanOfCutMean(double mean, double sigma, double cut);

// E[min(max of b lengths, cut)] for lengths log-normal (mu, sigma).
double ExpectedCutMax(double mu, double sigma, int b, double cut);

// The mean over micro-batches of E[min(longest, cut)] when `group` samples
// (a multiple of b) are sorted by length and cut into micro-batches of b
// neighbours (the Trainer's group_by_length, training_spec.h): micro-batch
// j's longest is the (group - j b)-th smallest of the group, whose CDF is
// P(Binomial(group, F(x)) >= group - j b). ExpectedCutMax(mu, sigma, b,
// cut) when group <= b (one micro-batch a group: no sorting).
// REQUIRES: group a multiple of b.
double ExpectedGroupedCutMax(double mu, double sigma, int b, int group, double cut);

// The log-sd of a log-normal whose standard deviation over its mean is cv.
double LogSdOfCv(double cv);

// The tokens a pack of `seq_len` holds on average when a packer keeps
// samples whole and takes them in order, closing a pack when the next
// sample does not fit and starting the next pack with it (torchtune's
// PackedDataset with split_across_pack=False): seq_len less the expected
// gap at the pack's end, for samples of mean `mean` and spread `cv` cut at
// seq_len. seq_len when mean >= seq_len (one sample fills a pack) or mean
// <= 0. Deterministic: the packing is played out over 4,000 packs on a
// fixed sequence of lengths, not sampled afresh; above 64 samples a pack,
// the gap is the renewal limit E[L^2] / (2 E[L]).
double ExpectedPackFill(int seq_len, double mean, double cv);

}  // namespace pf
