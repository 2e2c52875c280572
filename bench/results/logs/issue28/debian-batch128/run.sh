#!/bin/sh
# Does WSSET learn more when its batch positives are better? (docs/RESULTS.md "At the papers'
# budget": at batch 32 the batch's EMD-nearest item is of the anchor's class for 16 % of the
# anchors, at 128 for 29 %.) The Ours row of the 2 000-step table (authors' form, cpu preset)
# with --batch-size 128, 2 000 steps, evaluated every 4 epochs (5 steps an epoch: about as
# often as the batch-32 row's every epoch of 19 steps), 1 thread at nice 19.
CLI=${CLI:-/work/bin/setscope-cli-epochs30}
args="train --dataset debian-descriptions:balanced=25,tf=1 --threads 1 --seed 1 --no-baseline --lr 1e-4 --epochs 1000 --recipe ours --form authors --model selfattn --layers 2 --heads 4 --ff 256 --rho 256 --batch-size 128 --max-steps 2000 --config ev4.json --checkpoint-dir /work/ck/debian-batch128 --checkpoint-every 500"
[ -n "$RESUME" ] && args="$args --resume $RESUME"
echo "== ours-batch128: setscope-cli $args" >> ours-batch128.log; start=$(date +%s)
nice -n 19 $CLI $args 2>&1 | grep -v "^progress:" >> ours-batch128.log
echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> ours-batch128.log
