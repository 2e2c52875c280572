#!/bin/sh
# brown at 2000 steps (issue 28 §4): Ours, the cpu preset, 1 thread at nice 19 beside other work;
# (run.sh with the log written line by line, so a killed run loses no evaluation line)
# checkpoints every 100 steps so that a later session resumes (RESUME=path).
CLI=${CLI:-/tmp/cli-s36}
name=${1:-ours}
args="train --dataset brown:tf=1 --threads 1 --seed 1 --no-baseline --epochs 1000 --max-steps 2000 --config ev5.json --recipe $name --checkpoint-dir /work/ck/brown2000-$name --checkpoint-every 100"
[ -n "$RESUME" ] && args="$args --resume $RESUME"
echo "== $name: setscope-cli $args" >> $name.log; start=$(date +%s)
nice -n 19 $CLI $args 2>&1 | grep --line-buffered -v "^progress:" >> $name.log
echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log
