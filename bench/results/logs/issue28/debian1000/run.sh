#!/bin/sh
# debian-descriptions at the papers' budget (issue 28 §4: "the papers run 1 000 epochs"): the
# authors' form with the cpu preset, as the 2 000-step row of RESULTS.md but --epochs 1000 and no
# step cap (19 steps an epoch: 19 000 steps), evaluated every 10 epochs, 1 thread at nice 19
# beside other work; checkpoints every 1 000 steps so that a later session resumes (RESUME=path).
CLI=${CLI:-/work/bin/setscope-cli-0ea606c}
name=${1:-ours}
args="train --dataset debian-descriptions:balanced=25,tf=1 --threads 1 --seed 1 --no-baseline --lr 1e-4 --epochs 1000 --recipe $name --form authors --model selfattn --layers 2 --heads 4 --ff 256 --rho 256 --batch-size 32 --config ev10.json --checkpoint-dir /work/ck/debian1000-$name --checkpoint-every 1000"
[ -n "$RESUME" ] && args="$args --resume $RESUME"
echo "== $name: setscope-cli $args" >> $name.log; start=$(date +%s)
nice -n 19 $CLI $args 2>&1 | grep -v "^progress:" >> $name.log
echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log
