#!/usr/bin/env python3
"""Prints the README's "The data path, answered" tables: the data-path
scenarios (where the dataset lives, how many workers, checkpoints to which
tier, how much host memory) run through build/simulate with the figures as
simulated. Run from the repository root after building:
python3 scripts/data_path_tables.py"""
import json
import subprocess


def run(args):
    out = subprocess.run("build/simulate " + args + " --format json", shell=True, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def hours(s):
    return "%.1f h" % (s / 3600) if s >= 3600 else "%.0f min" % (s / 60)


def data_table(title, scenario, unit, tiers, workers):
    print("### " + title + "\n")
    print("`build/simulate %s` with `--set data.tier=TIER --set data.workers=N`:\n" % scenario)
    print("| tier | workers per GPU | first-epoch step | later step | %s/s per GPU (later) | data stall | bottleneck | job |" % unit)
    print("|---|---|---|---|---|---|---|---|")
    for tier in tiers:
        for w in workers:
            j = run("%s --set data.tier=%s --set data.workers=%d" % (scenario, tier, w))
            d = j["data"]
            stall = j["breakdown"]["data_stall_s"]
            first = j["job"]["first_epoch_step_s"] or j["step_time_s"]
            print("| %s | %d | %.1f ms | %.1f ms | %.0f | %.1f ms (%.0f%%) | %s | %s |" % (
                tier, w, 1e3 * first, 1e3 * j["step_time_s"], j["tokens_per_s_per_gpu"], 1e3 * stall,
                100 * stall / j["step_time_s"],
                d["bottleneck"] or "none (slowest: %s)" % d["stages"][0]["name"], hours(j["job"]["wall_clock_s"])))
    print()


data_table("A 7B LoRA SFT on 4x 8x A800: where the dataset lives", "scenarios/7b_sft_8xA800_data.yaml", "tokens",
           ["local_nvme", "nfs", "pfs", "oss"], [4, 16])
data_table("ResNet-50 on 4x 8x A800 from ImageNet JPEGs", "scenarios/resnet50_32xA800_data.yaml", "images",
           ["local_nvme", "nfs", "pfs", "oss"], [4, 16])

print("### Llama-2-70B pre-training: checkpoints every 30 minutes\n")
print("`build/simulate scenarios/llama70b_512xH100_ckpt.yaml` with:\n")
print("| nodes | tier | mode | write | pause per checkpoint | checkpoints | pauses in all | share of the job |")
print("|---|---|---|---|---|---|---|---|")
for nodes in [8, 64]:
    size = "--set cluster.nodes=%d --set parallel.dp=%d --set training.global_batch=%d" % (nodes, nodes // 4, nodes * 16)
    for tier in ["local_nvme", "lustre"]:
        for mode in ["sync", "async"]:
            j = run("scenarios/llama70b_512xH100_ckpt.yaml %s --set checkpoint.tier=%s --set checkpoint.mode=%s" % (
                size, tier, mode))
            c = j["checkpoint"]
            print("| %d | %s | %s | %.2f s | %.2f s | %d | %s | %.2f%% |" % (
                nodes, tier, mode, c["write_s"], c["pause_s"], c["count"], hours(c["total_pause_s"]),
                100 * c["total_pause_s"] / j["job"]["wall_clock_s"]))
print()

print("### Llama-2-70B full fine-tune with ZeRO-3 and CPU offload on 8x A800: 1 TB or 2 TB of RAM?\n")
print("`build/simulate scenarios/70b_zero3_offload_8xA800.yaml` with:\n")
print("| host memory | offload | GPU memory | host memory needed | fits | step | optimizer step | job |")
print("|---|---|---|---|---|---|---|---|")
for ram in ["1TiB", "2TiB"]:
    for off in ["cpu", "nvme"]:
        j = run("scenarios/70b_zero3_offload_8xA800.yaml --set cluster.node.cpu_memory=%s --set parallel.offload=%s" % (
            ram, off))
        h = j["host_memory"]
        print("| %s | %s | %.1f GiB | %.0f GiB | %s | %.1f s | %.2f s | %s |" % (
            ram, off, j["memory"]["per_gpu_bytes"] / 2**30, h["per_node_bytes"] / 2**30,
            "yes" if h["fits"] else "no", j["step_time_s"], j["breakdown"]["optimizer_s"],
            hours(j["job"]["wall_clock_s"])))
print()
