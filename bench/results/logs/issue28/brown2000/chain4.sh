#!/bin/sh
# Session 39, what ran (by hand; kept as the record): both rows resumed from their last
# checkpoints with session 36's binary (run.sh's default /tmp/cli-s36, kept as
# /work/bin/setscope-cli-6ab2eca), beside the repeated test suite (load 6-11).
RESUME=/work/ck/brown2000-approx-emd/step-000001100.pt CLI=/work/bin/setscope-cli-6ab2eca ./run-lb.sh approx-emd &
RESUME=/work/ck/brown2000-sset/step-000000200.pt CLI=/work/bin/setscope-cli-6ab2eca ./run-lb.sh sset &
wait
./summary.py ours.log ours+ps.log approx-emd.log sset.log > summary.out
