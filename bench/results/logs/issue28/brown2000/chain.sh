#!/bin/sh
# After the Ours row: Ours+PS, SSET and Approx.EMD at 2000 steps, one after the other (each
# resumable from its checkpoints: RESUME=/work/ck/brown2000-NAME/step-....pt ./run.sh NAME).
while pgrep -f "recipe ours --checkpoint-dir /work/ck/brown2000-ours " >/dev/null; do sleep 30; done
for r in ours+ps sset approx-emd; do ./run.sh $r; done
