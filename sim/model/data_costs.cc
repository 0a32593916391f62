#include "sim/model/data_costs.h"

#include "sim/model/host_memory.h"

namespace pf {
namespace {

// CPU time per sample on the reference core (topologies/cpus.yaml
// `reference`: one vCPU of an AWS p3dn.24xlarge, Xeon Platinum 8175M), in a
// PyTorch DataLoader worker.
// - jpeg: decode + RandomResizedCrop(224) + horizontal flip, ImageNet-size
//   JPEGs (512 px): 2,211 images/s on 12 cores, 5.4 ms per image per core
//   (FFCV docs/benchmarks.rst, PyTorch DataLoader "from RAM" curve;
//   digitised from its plot).
constexpr double kJpegSeconds = 5.4e-3;
// - raw: the augmentation alone. Single-thread microbenchmarks on one CPU
//   put decode at 1.2-1.9 ms (ternaus/imread_benchmark, ImageNet val) and
//   RandomResizedCrop + flip + ToTensor + Normalize at 0.9-1.2 ms
//   (pmeier/detection-reference-benchmark, 469x387 inputs): augmenting is
//   about 40% of decode + augment, applied to the DataLoader figure above.
constexpr double kAugmentShare = 0.4;
// - text: tokenising on the fly with a Hugging Face fast tokenizer, 0.43 M
//   tokens/s on one thread (openai/tiktoken README benchmark:
//   GPT2TokenizerFast 1.7 MB/s on 1 thread, "each token corresponds to
//   about 4 bytes").
constexpr double kTokenizeSecondsPerToken = 1 / 0.43e6;
// - tokens: pre-tokenised memory-mapped shards, collate only: 13.1 M
//   tokens/s (The-School-of-AI/LLM issue 483, .bin/.idx loader).
constexpr double kCollateSecondsPerToken = 1 / 13.1e6;
// Bytes per token of raw text ("about 4 bytes", tiktoken README).
constexpr double kTextBytesPerToken = 4;
// Bytes a text batch sends to the GPU per token: input ids, attention mask
// and labels as int64 (Hugging Face's default collator).
constexpr double kDeviceBytesPerToken = 24;
// Bytes per element of an image tensor after ToTensor + Normalize (float32).
constexpr double kImageElementBytes = 4;
// Shards are read in requests of the kernel's readahead window: Linux's
// default read_ahead_kb is 128 (Documentation/ABI/stable/sysfs-block).
constexpr double kReadaheadBytes = 128 * 1024;
// A pageable copy is staged through a pinned buffer by the driver: 0.54-0.77
// of the pinned rate measured on PCIe Gen4 (RTX 4090, NVlabs/cuda-oxide PR
// 976, 1-64 MiB copies), about 0.5 on V100 (rapidsai/dask-cuda PR 98);
// 0.6 kept.
constexpr double kPageableRate = 0.6;

// Elements of one input image: the vision model's input.
double ImageElements(const Scenario& s) {
  const VisionSpec& v = s.model.vision;
  return double(v.height) * v.width * v.channels;
}

}  // namespace

double SamplesPerMicroBatch(const Scenario& s) { return s.training.micro_batch; }

SampleCost CostOfSample(const Scenario& s) {
  const DataSpec& d = s.data;
  SampleCost c;
  const double speed = s.cluster.node.cpu.core_speed > 0 ? s.cluster.node.cpu.core_speed : 1;
  const double tokens = s.training.seq_len;
  switch (d.format) {
    case DataFormat::kJpeg:
    case DataFormat::kRaw:
      c.stored = d.sample_bytes;
      c.requests = 1;  // one file per sample
      c.cpu = Seconds(d.format == DataFormat::kJpeg ? kJpegSeconds : kJpegSeconds * kAugmentShare);
      c.device = Bytes(ImageElements(s) * kImageElementBytes);
      break;
    case DataFormat::kText:
    case DataFormat::kTokens: {
      const bool text = d.format == DataFormat::kText;
      // Token ids of a vocabulary under 65,536 fit 2 bytes (Megatron's
      // indexed datasets store uint16 then), else 4.
      const double per_token = d.bytes_per_token > 0 ? d.bytes_per_token
                               : text                ? kTextBytesPerToken
                               : s.model.vocab < 65536 ? 2
                                                       : 4;
      c.stored = Bytes(tokens * per_token);
      const double read = d.read_size.value() > 0 ? d.read_size.value() : kReadaheadBytes;
      c.requests = c.stored.value() / read;
      c.cpu = Seconds(tokens * (text ? kTokenizeSecondsPerToken : kCollateSecondsPerToken));
      c.device = Bytes(tokens * kDeviceBytesPerToken);
      break;
    }
  }
  // Measured on this node's CPU: in reference core-seconds, as the rest.
  if (d.cpu_per_sample) c.cpu = *d.cpu_per_sample * speed;
  return c;
}

BatchCost CostOfBatch(const Scenario& s) {
  const DataSpec& d = s.data;
  const SampleCost one = CostOfSample(s);
  const double samples = SamplesPerMicroBatch(s);
  const double miss = 1 - PageCacheHits(s);  // later epochs find part of the dataset in host memory
  BatchCost b;
  b.read_bytes = one.stored * (samples * miss);
  b.requests_per_worker = one.requests * samples * miss / d.workers;
  b.cpu = one.cpu * samples;
  b.device_bytes = one.device * (samples / (d.pinned ? 1 : kPageableRate));
  return b;
}

}  // namespace pf
