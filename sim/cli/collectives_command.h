// `simulate collectives TOPOLOGY --op all_reduce --gpus 8 [--nodes N]
// --sizes 1M:8G [--algo ring|tree|nvls] [--format text|json]`.
#pragma once

namespace pf {

// Runs the command on argv (argv[0] = "collectives"); returns the exit
// status (0 ok, 2 bad input, 3 internal error).
int CollectivesCommand(int argc, char** argv);

}  // namespace pf
