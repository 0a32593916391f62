# The stages of sim/, one folder and one library each, and the direction
# each may look in: PF_DEPS_<stage> lists the stages its code may include
# and link (and, through them, theirs). Data flows one way:
#
#   base <- spec <- model <- scenario             (YAML -> Scenario; models' shapes checked by their math)
#           spec <- model <- workload             (model math -> task graph)
#   base <- collectives <- engine                 (flows -> SimGrid; SimGrid only here)
#           engine <- accounting                  (task times -> breakdown)
#   workload, accounting <- job <- report <- cli  (step -> job -> report)
#                            job <- calibration   (refit constants over published runs)
#                  job, scenario <- sweep         (grids of --set overrides, sharded, resumable)
#                  job, scenario <- plan          (screen every layout, simulate the best, Pareto)
#
# check_layers.cmake enforces this table at configure time and as a test.
set(PF_LAYERS base proto spec scenario model collectives workload engine accounting job
    calibration sweep plan report cli)
set(PF_DEPS_base "")
set(PF_DEPS_proto "")
set(PF_DEPS_spec base)
set(PF_DEPS_scenario spec model)
set(PF_DEPS_model spec)
set(PF_DEPS_collectives base)
set(PF_DEPS_workload model proto)
set(PF_DEPS_engine collectives spec proto)
set(PF_DEPS_accounting engine)
set(PF_DEPS_job accounting workload)
set(PF_DEPS_calibration job scenario)
set(PF_DEPS_sweep job scenario)
set(PF_DEPS_plan job scenario)
set(PF_DEPS_report job plan)
set(PF_DEPS_cli report scenario calibration sweep plan)
# The only stage that may include SimGrid.
set(PF_SIMGRID_LAYER engine)
