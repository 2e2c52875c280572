#!/bin/sh
# The SSDML table's five baselines with issue 28's schedule, as the `ssdml` row was run
# (../ssdml.log): 10 labels per class, cnn-mnist 128-d, partitions of the labelled items + 3 000
# unlabelled ones renewed every 10 epochs, a 15 % validation split keeping the best model, 10 epochs,
# Adam 1e-4, seed 1. One thread at nice 19 beside other work; a checkpoint every epoch in
# /work/ck/ssdml-NAME, so that a later session resumes: RESUME=/work/ck/ssdml-NAME/step-....pt ./run.sh NAME
CLI=${CLI:-/tmp/cli-s37}
name=${1:?recipe: lrml, seraph, isdml, apllr or apit}
args="train --dataset fashion-mnist --recipe $name --labels-per-class 10 --model cnn-mnist --embedding-dim 128 --validation-fraction 0.15 --threads 1 --seed 1 --no-baseline --partition-size 3000 --lr 1e-4 --epochs 10 --checkpoint-dir /work/ck/ssdml-$name --checkpoint-every 0"
[ -n "$RESUME" ] && args="$args --resume $RESUME"
echo "== $name: setscope-cli $args ($(date -u))" >> $name.log; start=$(date +%s)
nice -n 19 $CLI $args 2>&1 | grep -v "^progress:" >> $name.log
echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg), done $(date -u)" >> $name.log
