// `simulate sweep SCENARIO --grid KEY=V1,V2,... [--grid ...] [--set ...]
// -o results.csv [--format csv|jsonl] [-j N] [--resume] [--shard K/N]` and
// `simulate merge -o all.csv shard files...` (sweep/sweep_runner.h).
#pragma once

namespace pf {

// Each runs its command on argv (argv[0] = "sweep" or "merge") and returns
// the exit status (0 ok, 2 bad input, 3 internal error).
int SweepCommand(int argc, char** argv);
int MergeCommand(int argc, char** argv);

}  // namespace pf
