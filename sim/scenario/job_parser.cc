#include "sim/scenario/job_parser.h"

namespace pf {

JobSpec ParseJob(const YamlView& v) {
  v.ExpectKeys({"startup", "stage_from", "eval", "source"});
  JobSpec j;
  if (v.Has("startup")) j.startup = v.Get("startup").AsSeconds(true);
  if (v.Has("stage_from")) j.stage_from = v.Get("stage_from").Name(64);
  if (v.Has("eval")) {
    YamlView e = v.Get("eval");
    e.ExpectKeys({"every_steps", "batches"});
    j.eval_every_steps = e.Get("every_steps").Int(1, 1LL << 40);
    j.eval_batches = static_cast<int>(e.Get("batches").Int(1, 1 << 20));
  }
  if (v.Has("source")) v.Get("source").Name(4096);  // text, checked, not used
  return j;
}

}  // namespace pf
