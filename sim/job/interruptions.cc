#include "sim/job/interruptions.h"

#include <algorithm>
#include <cmath>

namespace pf {

Seconds DalyWallClock(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, Seconds mtbi) {
  const double m = mtbi.value(), tau = interval.value();
  if (!(m > 0) || !(tau > 0)) return Seconds(HUGE_VAL);
  return Seconds(m * std::exp(restart.value() / m) * std::expm1((tau + checkpoint.value()) / m) * work.value() / tau);
}

Seconds DalyOptimalInterval(Seconds checkpoint, Seconds mtbi) {
  const double d = checkpoint.value(), m = mtbi.value();
  if (d >= 2 * m) return mtbi;
  const double x = d / (2 * m);
  return Seconds(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d);
}

Interruptions ExpectInterruptions(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, int gpus,
                                  Seconds gpu_mtbf, double preemptions_per_hour) {
  Interruptions out;
  const double rate = double(gpus) / gpu_mtbf.value() + preemptions_per_hour / 3600;  // per second
  out.mtbi = Seconds(rate > 0 ? 1 / rate : HUGE_VAL);
  out.interval = std::min(interval, work);
  out.wall = rate > 0 ? DalyWallClock(work, out.interval, checkpoint, restart, out.mtbi)
                      : work * (1 + checkpoint.value() / out.interval.value());
  out.expected = out.wall.value() * rate;
  out.goodput = work.value() / out.wall.value();
  out.optimal_interval = DalyOptimalInterval(checkpoint, out.mtbi);
  return out;
}

}  // namespace pf
