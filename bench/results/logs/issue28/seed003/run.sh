#!/bin/sh
# waits for the table runs, then seed 003 with cnn-weak, 10 epochs each
while pgrep -f "table3/run.sh" >/dev/null || pgrep -f "^/work/runs/table3" > /dev/null; do sleep 20; done
CLI=/tmp/cli5
common="--dataset fashion-mnist --model cnn-weak --label-set coarse --epochs 10 --seed 1 --threads 2 --no-baseline --config ev5.json"
run() { name=$1; shift; echo "== $name: setscope-cli train $common $*" > $name.log; start=$(date +%s);
  $CLI train $common --checkpoint-dir $PWD/$name-ck "$@" 2>&1 | grep -v "^progress:" >> $name.log
  echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log
  start=$(date +%s)
  echo "== eval: setscope-cli eval --dataset fashion-mnist --label-set fine --coarse coarse --metrics knn-accuracy,neighbourhood-purity,ndcg,csl --checkpoint $name-ck/best.pt" > $name.eval.log
  $CLI eval --dataset fashion-mnist --label-set fine --coarse coarse --metrics knn-accuracy,neighbourhood-purity,ndcg,csl --checkpoint $PWD/$name-ck/best.pt --threads 2 2>&1 | grep -v "^progress:" >> $name.eval.log
  echo "wall $(( $(date +%s) - start )) s" >> $name.eval.log; }
run ce --recipe ce
run uniformity-c10-paper --recipe uniformity --classes 10 --confidence 0
