#!/usr/bin/env python3
"""Prints the README's "Hardware questions" tables: each seeds' question as
scenario variants run through build/simulate (and build/simulate
collectives), with the figures as simulated. Run from the repository root
after building: python3 scripts/scenario_pairs.py"""
import json
import subprocess


def run(args):
    out = subprocess.run("build/simulate " + args + " --format json", shell=True, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def table(question, scenario, variants):
    print("### " + question + "\n")
    print("`build/simulate %s` with:\n" % scenario)
    print("| variant | flags | step | exposed comm | MFU | vs first |")
    print("|---|---|---|---|---|---|")
    first = None
    for name, flags in variants:
        j = run(scenario + " " + flags)
        b = j["breakdown"]
        step = j["step_time_s"]
        first = first or step
        exposed = b["tp_comm_s"] + b["dp_comm_s"] + b["pp_comm_s"]
        rel = "" if step == first else "%+.1f%%" % (100 * (step / first - 1))
        print("| %s | %s | %.2f s | %.2f s | %.1f%% | %s |" % (
            name, "`%s`" % flags if flags else "", step, exposed, 100 * j["mfu"], rel))
    print()


# The TP8 layout of the flagship job (the flagship itself runs LLaMA-Factory,
# data parallel); a price per node-hour instead of the A800 offer, which
# rents A800 nodes only (the step does not depend on it).
tp8 = "scenarios/70b_8xA800_tp8.yaml --set 'price={per_node_hour: 16USD}'"
table("Does the A800's (and H800's) cut NVLink hurt a 70B TP8 fine-tune?", tp8, [
    ("8x A100 (NVLink 600 GB/s)", "--set cluster.node=a100-80gb-sxm-8x"),
    ("8x A800 (NVLink 400 GB/s)", ""),
])
table("The same on Hopper", tp8, [
    ("8x H100 (NVLink 900 GB/s)", "--set cluster.node=h100-sxm-8x"),
    ("8x H800 (NVLink 400 GB/s)", "--set cluster.node=h800-sxm-8x"),
])
table("What do PCIe x8 or Gen 3 lanes do on 4x RTX 4090 (no P2P)? A 7B LoRA", "scenarios/7b_lora_4x4090.yaml", [
    ("PCIe 4.0 x16", ""),
    ("PCIe 4.0 x8", "--set cluster.node.pcie.lanes=8"),
    ("PCIe 3.0 x16", "--set cluster.node.pcie.gen=3"),
])
full = "--set model=mpt-1b --set training.method=full --set parallel.zero=1 --set training.micro_batch=4"
table("... and a full-parameter 1.3B (mpt-1b, ZeRO-1)", "scenarios/7b_lora_4x4090.yaml " + full, [
    ("PCIe 4.0 x16", ""),
    ("PCIe 4.0 x8", "--set cluster.node.pcie.lanes=8"),
    ("PCIe 3.0 x16", "--set cluster.node.pcie.gen=3"),
])
print("The 4-GPU all-reduce itself, `build/simulate collectives rtx4090-pcie-4x --sizes 256M:256M` with:\n")
print("| lanes | flags | busbw |")
print("|---|---|---|")
for name, flags in [("PCIe 4.0 x16", ""), ("PCIe 4.0 x8", "--set pcie.lanes=8"),
                    ("PCIe 3.0 x16", "--set pcie.gen=3"), ("PCIe 3.0 x8", "--set pcie.gen=3 --set pcie.lanes=8")]:
    out = subprocess.run("build/simulate collectives rtx4090-pcie-4x --sizes 256M:256M --format json " + flags,
                         shell=True, check=True, capture_output=True, text=True).stdout
    print("| %s | %s | %.1f GB/s |" % (name, "`%s`" % flags if flags else "", json.loads(out)["rows"][0]["busbw_gbps"]))
print()
table("Is multi-node training over RoCE without GPUDirect RDMA a cliff? 13B ZeRO-3 on 4 A800 nodes",
      "scenarios/13b_zero3_32xA800_roce.yaml", [
          ("200G RoCE, GPUDirect RDMA", ""),
          ("GPUDirect RDMA off", "--set cluster.node.nics.gpudirect_rdma=false"),
          ("TCP sockets", "--set cluster.node.nics.kind=tcp"),
      ])
table("1 vs 4 vs 8 NICs per node (PCIe switches left out so that only the count changes)",
      "scenarios/13b_zero3_32xA800_roce.yaml --set cluster.node.pcie.switches=[]", [
          ("1x 200G", "--set cluster.node.nics.count=1"),
          ("2x 200G", "--set cluster.node.nics.count=2"),
          ("4x 200G", "--set cluster.node.nics.count=4"),
          ("8x 200G", "--set cluster.node.nics.count=8"),
      ])
ft = "--set cluster.fabric.kind=fat_tree --set cluster.fabric.oversubscription="
table("What does a 2:1 oversubscribed fat-tree cost at 64 nodes (512 GPUs) against rail-optimized?",
      "scenarios/llama70b_512xH100.yaml", [
          ("rail-optimized, non-blocking", ""),
          ("fat-tree 2:1, packed", ft + "2"),
          ("fat-tree 2:1, spread over leaves", ft + "2 --set cluster.fabric.placement=spread"),
          ("fat-tree 4:1, spread over leaves", ft + "4 --set cluster.fabric.placement=spread"),
      ])
