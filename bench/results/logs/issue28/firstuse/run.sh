#!/bin/sh
# Issue 28 §5: "the Retrieval view's first use after a short run shows an embedding that has
# learned something". What a user meets on a dataset of sets: the GUI's method (--recipe ours;
# no --model or --preset, so selfattn with the cpu preset) for the default number of epochs --
# the trainer's 3 before this change (`epochs3`, 57 steps, binary of 0ea606c), 30 after it
# (`default`, 570 steps) -- against the untrained encoder (one step at lr 1e-12). Then
# `retrieve` (what the Retrieval view shows) on each kept model for 40 queries spread over the
# dataset, scored against exact EMD's top 10 by retrieve_summary.py.
OLD=${OLD:-/work/bin/setscope-cli-0ea606c}
CLI=${CLI:-/work/bin/setscope-cli-epochs30}
D="debian-descriptions:balanced=25,tf=1"
run() { echo "== $1: setscope-cli $3" >> $1.log; nice -n 19 $2 $3 2>&1 | grep -v "^progress:" >> $1.log; }
run untrained $OLD "train --dataset $D --threads 1 --seed 1 --no-baseline --recipe ours --max-steps 1 --lr 1e-12 --checkpoint-dir /work/ck/firstuse-untrained"
run epochs3 $OLD "train --dataset $D --threads 1 --seed 1 --no-baseline --recipe ours --max-steps 250 --checkpoint-dir /work/ck/firstuse-epochs3"
run default $CLI "train --dataset $D --threads 1 --seed 1 --no-baseline --recipe ours --checkpoint-dir /work/ck/firstuse-default"
for m in untrained epochs3 default; do
  ck=/work/ck/firstuse-$m/best.pt   # the kept model, what the GUI publishes at the end of a run
  : > retrieve-$m.jsonl
  for q in $(seq 0 25 975); do
    nice -n 19 $CLI retrieve --dataset $D --checkpoint $ck --query $q --k 10 --threads 1 --json 2>/dev/null | tr -d '\n' >> retrieve-$m.jsonl
    echo >> retrieve-$m.jsonl
  done
done
./retrieve_summary.py untrained=retrieve-untrained.jsonl "3 epochs (57 steps)=retrieve-epochs3.jsonl" \
    "30 epochs (570 steps)=retrieve-default.jsonl"
