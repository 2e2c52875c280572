#!/bin/sh
# Session 37: resume Ours+PS from its step-300 checkpoint, then SSET and Approx.EMD (same binary as chain.sh).
RESUME=/work/ck/brown2000-ours+ps/step-000000300.pt ./run.sh ours+ps
for r in sset approx-emd; do ./run.sh $r; done
