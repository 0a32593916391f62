// `simulate plan SCENARIO --deadline 14d [--budget 50kUSD] [--gpus
// A100,H100,...] [--max-gpus N] [--simulate N]` (plan/planner.h).
#pragma once

namespace pf {

// Runs the command on argv (argv[0] = "plan"); returns the exit status (0
// ok, 2 bad input, 3 internal error).
int PlanCommand(int argc, char** argv);

}  // namespace pf
