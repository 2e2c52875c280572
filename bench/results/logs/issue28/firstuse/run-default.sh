#!/bin/sh
# The part of run.sh that ran after the change (untrained and epochs3 had run with the old binary).
CLI=${CLI:-/work/bin/setscope-cli-epochs30}
D="debian-descriptions:balanced=25,tf=1"
a="train --dataset $D --threads 1 --seed 1 --no-baseline --recipe ours --checkpoint-dir /work/ck/firstuse-default"
echo "== default: setscope-cli $a" >> default.log; nice -n 19 $CLI $a 2>&1 | grep -v "^progress:" >> default.log
: > retrieve-default.jsonl
for q in $(seq 0 25 975); do
  nice -n 19 $CLI retrieve --dataset $D --checkpoint /work/ck/firstuse-default/best.pt --query $q --k 10 --threads 1 --json 2>/dev/null | tr -d '\n' >> retrieve-default.jsonl
  echo >> retrieve-default.jsonl
done
./retrieve_summary.py untrained=retrieve-untrained.jsonl "3 epochs (57 steps)=retrieve-epochs3.jsonl" \
    "30 epochs (570 steps)=retrieve-default.jsonl"
