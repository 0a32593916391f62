#include "sim/scenario/checkpoint_parser.h"

#include <string>

namespace pf {

CheckpointSpec ParseCheckpoint(const YamlView& v) {
  v.ExpectKeys({"tier", "every", "every_steps", "mode", "source"});
  CheckpointSpec c;
  c.enabled = true;
  c.tier = v.Get("tier").Name(64);
  if (v.Has("every") == v.Has("every_steps"))
    (v.Has("every") ? v.Get("every_steps") : v).Fail("give every (a duration, e.g. 30min) or every_steps, not both");
  // At least a second and at most a year apart: a checkpoint per step of a
  // sub-second step, or one per job.
  if (v.Has("every")) {
    c.every = v.Get("every").AsSeconds(true);
    if (!(c.every.value() >= 1 && c.every.value() <= 3.2e7))
      v.Get("every").Fail("\"" + v.Get("every").Str() + "\" must be between 1s and 1 year (e.g. 30min)");
  } else {
    c.every_steps = v.Get("every_steps").Int(1, 1LL << 40);
  }
  if (v.Has("mode")) c.async = v.Get("mode").Choice({"sync", "async"}) == "async";
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  return c;
}

}  // namespace pf
