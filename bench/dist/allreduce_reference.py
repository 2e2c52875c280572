# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Reference for bench_allreduce: torch.distributed.all_reduce (Gloo) of --floats float32
between 2 processes on this machine; prints "reference <median seconds>"."""
import argparse, os, statistics, tempfile, time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, world, init, floats, reps, out):
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    g = torch.full((floats,), 1.0 + rank)
    times = []
    for k in range(reps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(g)
        if k >= 3:
            times.append(time.perf_counter() - t0)
    if rank == 0:
        out.put(statistics.median(times))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--floats", type=int, default=4_900_000)
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as d:
        init = "file://" + os.path.join(d, "store")
        ctx = mp.get_context("spawn")
        q = ctx.SimpleQueue()
        procs = [ctx.Process(target=rank_main, args=(r, 2, init, a.floats, a.reps, q)) for r in range(2)]
        for pr in procs:
            pr.start()
        for pr in procs:
            pr.join()
        print("reference %.6f" % q.get())


if __name__ == "__main__":
    main()
