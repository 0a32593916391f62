#!/usr/bin/env bash
# A sharded sweep on a real Slurm: starts a private single-node Slurm from
# Debian's slurm-wlm and munge (munged with a temporary key and socket,
# slurmctld and slurmd with a minimal slurm.conf in a temporary directory on
# unused ports), submits the sweep as a job array of 4 tasks (each
# `simulate sweep ... --shard $SLURM_ARRAY_TASK_ID/4`, the README's sbatch
# script), merges the shards, compares the result with the same sweep run
# locally, and stops the daemons by their pid files. Needs root (slurmd runs
# jobs as their user; munged and the daemons run as root here).
# Usage: tests/integration/slurm_sweep_test.sh build/simulate
set -u
SIM="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
T=$(mktemp -d /tmp/preflight-slurm.XXXXXX)
chmod 700 "$T"
export SLURM_CONF="$T/slurm.conf"
source "$(dirname "$0")/../lib/check.sh"

stop() {
  local f
  for f in slurmd slurmctld munged; do
    [ -f "$T/$f.pid" ] && kill "$(cat "$T/$f.pid")" 2>/dev/null
  done
  for f in slurmd slurmctld munged; do  # wait for each to exit (at most 10 s)
    local i=0
    while [ -f "$T/$f.pid" ] && kill -0 "$(cat "$T/$f.pid")" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
  done
  rm -rf "$T"
}
trap stop EXIT

for cmd in munged slurmctld slurmd sbatch sinfo; do
  command -v $cmd >/dev/null || { echo "FAIL: $cmd not installed (scripts/setup.sh test installs slurm-wlm and munge)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "FAIL: the private Slurm needs root"; exit 1; }

# munge: a fresh key and a private socket.
dd if=/dev/urandom of="$T/munge.key" bs=1 count=1024 2>/dev/null
chmod 400 "$T/munge.key"
munged -f --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
       --log-file="$T/munged.log" --seed-file="$T/munged.seed"
check "munged started" test -s "$T/munged.pid"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
HOST=$(hostname)
mkdir -p "$T/state" "$T/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=preflight
SlurmctldHost=$HOST
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$HOST CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld && slurmd
up=0
for i in $(seq 1 100); do
  if sinfo -h -o "%T" 2>/dev/null | grep -q idle; then up=1; break; fi
  sleep 0.2
done
check "slurm node idle" test $up -eq 1
if [ $up -ne 1 ]; then tail -5 "$T/slurmctld.log" "$T/slurmd.log"; echo "slurm_sweep_test: $pass passed, $fail failed"; exit 1; fi

SC="$ROOT/scenarios/7b_lora_4x4090.yaml"
GRID="--grid parallel.dp=1,2,4 --grid training.micro_batch=1,2,4 --grid training.recompute=none,full"
# The README's job array script, with the sweep's arguments.
cat >"$T/sweep.sbatch" <<JOB
#!/bin/bash
#SBATCH --array=0-3
#SBATCH --output=$T/shard_%a.log
"$SIM" sweep "$SC" $GRID -q --shard \${SLURM_ARRAY_TASK_ID}/4 -o "$T/shard_\${SLURM_ARRAY_TASK_ID}.csv"
JOB
timeout 300 sbatch --wait "$T/sweep.sbatch" >"$T/sbatch.out" 2>&1; rc=$?
check "the job array ran" test $rc -eq 0
for k in 0 1 2 3; do check "shard $k written" test -s "$T/shard_$k.csv"; done
"$SIM" merge -o "$T/merged.csv" "$T"/shard_{0,1,2,3}.csv 2>"$T/merge.err"; rc=$?
check "merge exits 0" test $rc -eq 0
"$SIM" sweep "$SC" $GRID -q -o "$T/local.csv" 2>/dev/null
check "the Slurm sweep is the local sweep" cmp -s "$T/local.csv" "$T/merged.csv"

finish slurm_sweep_test
