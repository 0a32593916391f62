#include "sim/scenario/checkpoint_parser.h"

#include <string>

namespace pf {

CheckpointSpec ParseCheckpoint(const YamlView& v) {
  v.ExpectKeys({"tier", "every", "every_steps", "mode", "keep", "source"});
  CheckpointSpec c;
  c.enabled = true;
  c.tier = v.Get("tier").Name(64);
  if (v.Has("every") == v.Has("every_steps"))
    (v.Has("every") ? v.Get("every_steps") : v).Fail("give every (a duration, e.g. 30min) or every_steps, not both");
  // At least a second apart (at most a day: the range of any duration).
  if (v.Has("every")) {
    c.every = v.Get("every").AsSeconds(true);
    if (!(c.every.value() >= 1))
      v.Get("every").Fail("\"" + v.Get("every").Str() + "\" must be between 1s and 1d (e.g. 30min)");
  } else {
    c.every_steps = v.Get("every_steps").Int(1, 1LL << 40);
  }
  if (v.Has("keep")) c.keep = v.Get("keep").Int(1, 1LL << 40);
  if (v.Has("mode")) c.async = v.Get("mode").Choice({"sync", "async"}) == "async";
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  return c;
}

InterruptionSpec ParseInterruptions(const YamlView& v, int gpus_per_node) {
  v.ExpectKeys({"gpu_mtbf_hours", "node_mtbf_hours", "preemptions_per_hour", "restart", "source"});
  InterruptionSpec i;
  i.enabled = true;
  // In hours, a plain number: a GPU's MTBF is years, beyond any duration's range.
  double hours = kLlama3GpuMtbfHours;
  if (v.Has("gpu_mtbf_hours")) {
    hours = v.Get("gpu_mtbf_hours").Number();
    if (!(hours >= 1 && hours <= 1e9))
      v.Get("gpu_mtbf_hours").Fail("\"" + v.Get("gpu_mtbf_hours").Str() + "\" must be in [1, 1e9] hours");
  }
  // Per node: a node failing once per X h fails as often as its G GPUs
  // failing once per G x X h each.
  if (v.Has("node_mtbf_hours")) {
    if (v.Has("gpu_mtbf_hours")) v.Get("node_mtbf_hours").Fail("give gpu_mtbf_hours or node_mtbf_hours, not both");
    hours = v.Get("node_mtbf_hours").Number();
    if (!(hours >= 1 && hours <= 1e9))
      v.Get("node_mtbf_hours").Fail("\"" + v.Get("node_mtbf_hours").Str() + "\" must be in [1, 1e9] hours");
    hours *= gpus_per_node;
  }
  i.gpu_mtbf = Seconds(hours * 3600);
  if (v.Has("preemptions_per_hour")) {
    i.preemptions_per_hour = v.Get("preemptions_per_hour").Number();
    if (!(i.preemptions_per_hour >= 0 && i.preemptions_per_hour <= 100))
      v.Get("preemptions_per_hour").Fail("\"" + v.Get("preemptions_per_hour").Str() +
                                         "\" must be a rate in [0, 100] per hour");
  }
  // Assumption: re-provisioning and restarting the job's processes (10 min);
  // reading the checkpoint back is simulated separately.
  i.restart = v.Has("restart") ? v.Get("restart").AsSeconds(true) : Seconds(600);
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  return i;
}

}  // namespace pf
