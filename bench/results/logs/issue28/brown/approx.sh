#!/bin/sh
name=approx-emd
echo "== approx-emd: setscope-cli train --dataset brown:tf=1 --threads 2 --seed 1 --no-baseline --epochs 1000 --max-steps 200 --config ev5.json --recipe approx-emd" > $name.log
start=$(date +%s)
/tmp/cli5 train --dataset brown:tf=1 --threads 2 --seed 1 --no-baseline --epochs 1000 --max-steps 200 --config ev5.json --recipe approx-emd 2>&1 | grep --line-buffered -v "^progress:" >> $name.log
echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >> $name.log
