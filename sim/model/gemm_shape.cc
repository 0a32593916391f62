#include "sim/model/gemm_shape.h"

#include <algorithm>

namespace pf {

double GemmShapeFactor(int sms, double m, double n, double k, const GemmShapeConstants& c) {
  if (sms <= 0 || m <= 0 || n <= 0 || k <= 0) return 1;
  // cuBLAS's common CTA tile on A100/H100 is 128 x 128 (or 128 x 256).
  const double tiles_per_sm = m * n / (double(sms) * 128 * 128);
  const double fill = tiles_per_sm / (tiles_per_sm + c.tiles_half);
  const double depth = k / (k + c.k_half);
  return std::min(1.0, c.headroom * fill * depth);
}

}  // namespace pf
