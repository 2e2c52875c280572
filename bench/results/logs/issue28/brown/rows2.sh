#!/bin/sh
# after the 400-step `ours` row: exact EMD-kNN, then the other learned rows at 200 steps
while kill -0 24062 2>/dev/null; do sleep 10; done
CLI=/tmp/cli5
DS="brown:tf=1"
STEPS=200
run() { name=$1; shift; echo "== $name: setscope-cli $*" > $name.log; start=$(date +%s);
  $CLI "$@" 2>&1 | grep --line-buffered -v "^progress:" >> $name.log
  echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log; }
t="train --dataset $DS --threads 2 --seed 1 --no-baseline --epochs 1000 --max-steps $STEPS --config ev5.json"
run emd-knn emd-knn --dataset $DS --k 10 --test-queries 100000 --threads 2
run ours+ps $t --recipe ours+ps
run sset $t --recipe sset
run approx-emd $t --recipe approx-emd
