#!/bin/sh
# brown rows after the pairwise matrix: exact EMD-kNN, then the learned rows with the cpu preset
while pgrep -f "emd-matrix --dataset brown" >/dev/null; do sleep 20; done
CLI=/tmp/cli5
DS="brown:tf=1"
STEPS=${STEPS:-400}
run() { name=$1; shift; echo "== $name: setscope-cli $*" > $name.log; start=$(date +%s);
  $CLI "$@" 2>&1 | grep -v "^progress:" >> $name.log
  echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log; }
t="train --dataset $DS --threads 2 --seed 1 --no-baseline --epochs 1000 --max-steps $STEPS --config ev5.json"
run ours $t --recipe ours
run emd-knn emd-knn --dataset $DS --k 10 --test-queries 100000 --threads 2
run ours+ps $t --recipe ours+ps
run sset $t --recipe sset
run approx-emd $t --recipe approx-emd
