#!/bin/sh
# Session 38: Ours+PS resumed from its step-1200 checkpoint and Approx.EMD, beside debian1000/
# (1-thread runs at nice 19 on the 2-core machine). Same binary as chain.sh. SSET next.
RESUME=/work/ck/brown2000-ours+ps/step-000001200.pt ./run.sh ours+ps &
./run.sh approx-emd &
wait
./run.sh sset
