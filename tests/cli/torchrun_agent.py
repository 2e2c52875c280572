# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Stands in for torchrun's agent (tst_CliDistributed::underTorchrunsAgentStore): serves a
PyTorch TCPStore, as torchrun's elastic agent does, and starts 2 ranks of the command given with
the environment torchrun sets (TORCHELASTIC_USE_AGENT_STORE=True: the workers join the agent's
store as clients, under /worker/attempt_<restart>). Exits with the ranks' largest exit code.
usage: torchrun_agent.py PORT COMMAND..."""
import datetime
import os
import subprocess
import sys

import torch.distributed as dist

port = int(sys.argv[1])
store = dist.TCPStore("127.0.0.1", port, 3, True, datetime.timedelta(seconds=120), wait_for_workers=False)
procs = []
for rank in range(2):
    env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2",
               MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), TORCHELASTIC_USE_AGENT_STORE="True",
               TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_RUN_ID="setscope-test", OMP_NUM_THREADS="1")
    procs.append(subprocess.Popen(sys.argv[2:], env=env, stdout=None if rank == 0 else subprocess.DEVNULL))
codes = [p.wait() for p in procs]
sys.exit(max(codes))
