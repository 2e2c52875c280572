#!/bin/sh
# Session 38, what ran (by hand, not as one script; kept as the record): Ours+PS resumed from
# its step-1 200 checkpoint and finished; Approx.EMD started from scratch beside it, stopped at
# step 600 so that debian1000/ and debian-batch128/ could run, resumed from step 600 and left
# running when the session ended (resume it from its last checkpoint); SSET was started and
# cancelled at step 90 (its log and checkpoints removed), and started again at 15:35 with
# run-lb.sh; resume both from their last checkpoints (RESUME=... ./run-lb.sh NAME).
RESUME=/work/ck/brown2000-ours+ps/step-000001200.pt ./run.sh ours+ps &
./run.sh approx-emd   # stopped at step 600, then:
RESUME=/work/ck/brown2000-approx-emd/step-000000600.pt ./run.sh approx-emd
wait
./run-lb.sh sset   # SSET from scratch, started at 15:35 beside Approx.EMD, left running when the session ended
