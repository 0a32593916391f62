#include "sim/spec/spec.h"

namespace pf {

FlopsPerSecond PeakFlops(const GpuSpec& g, Precision p) {
  switch (p) {
    case Precision::kBf16: return g.peak_bf16;
    case Precision::kFp16: return g.peak_fp16;
    case Precision::kFp8: return g.peak_fp8;
  }
  return g.peak_bf16;
}

}  // namespace pf
