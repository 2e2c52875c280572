#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# "No behaviour change" for a restructuring of training (issue 30): runs the same trainings with
# two setscope-cli binaries, OLD (before the change) and NEW (after), and compares what they
# print: every epoch row, the stage, resume, best-epoch and mining messages, the final score,
# with the timings cut (wall seconds differ run to run; nothing else may). One line per case:
# "identical" or the diff. Needs the datasets debian-descriptions and the EMD cache of
# debian-descriptions:balanced=25,tf=1 (docs/DATASETS.md); about 2 minutes on 2 cores.
#
#   OLD=/path/to/old/setscope-cli NEW=build/app/cli/setscope-cli tools/refactor/compare_trainings.sh
#   ONLY=resume ... (one group: base, more, resume)
set -u
OLD=${OLD:?the setscope-cli binary before the change}; NEW=${NEW:-build/app/cli/setscope-cli}
W=${WORK:-/tmp/setscope-compare-trainings}; rm -rf "$W"; mkdir -p "$W"
filt() { grep -E "^epoch|^final|^stage|resumed|best|mined|^training" | sed -E 's/ *\([0-9.]+s\)//; s/(step|augment|collate|forward|loss|backward|optimizer|emd|allreduce)-seconds [0-9.e+-]+//g; s/, device.*//; s/mined in [0-9.]+ s//; s/ +/ /g; s/-(old|new)\//-X\//g'; }
run() { name=$1; shift
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    rm -rf $W/ck-$name-$b
    args=("$@"); args=("${args[@]//CK/$W/ck-$name-$b}")
    timeout 900 $bin train "${args[@]}" > $W/$name.$b.log 2>&1; echo "$name $b rc=$?" >&2
    filt < $W/$name.$b.log > $W/$name.$b.txt
  done
  if diff -q $W/$name.old.txt $W/$name.new.txt >/dev/null; then echo "$name: identical ($(grep -c '^epoch' $W/$name.new.txt) epoch rows)"; else echo "$name: DIFFERENT"; diff $W/$name.old.txt $W/$name.new.txt | head -10; fi
}
SYN=synthetic:dim=6,coarse=3,fine=2,points=40,seed=4
DEB=debian-descriptions:balanced=25,tf=1
CPU="--device cpu --threads 1"
base() {
run mlp-triplet --dataset $SYN --model mlp --loss triplet --epochs 3 $CPU --checkpoint-dir CK
run mlp-cosine-val --dataset $SYN --model mlp --loss contrastive --epochs 4 --schedule cosine --validation-fraction 0.2 $CPU --checkpoint-dir CK
run ours-ps --dataset $DEB --recipe ours+ps --preset cpu --epochs 1 --max-steps 6 $CPU --checkpoint-dir CK
run exemplar --dataset $DEB --recipe exemplar --preset cpu --epochs 1 --max-steps 5 $CPU
run nproc2 --dataset $SYN --model mlp --loss triplet --epochs 2 $CPU --nproc 2
}
more() {
run recipe-int --dataset $DEB --recipe int --preset cpu --epochs 1 --label-fraction 0.2 --max-steps 24 $CPU --checkpoint-dir CK
run moco --dataset $DEB --model selfattn --preset cpu --loss moco --augmentation pointswap --epochs 1 --max-steps 4 $CPU
run ssdml --dataset $SYN --recipe ssdml --epochs 2 --label-fraction 0.2 $CPU
run lrml --dataset $SYN --recipe lrml --epochs 2 --label-fraction 0.2 $CPU
run shards2 --dataset $SYN --model mlp --loss triplet --epochs 2 --batch-shards 2 $CPU
}
resume() {
  # 1) mlp on the synthetic set, 2) ours with explicit selfattn options (before ec7117b the CLI
  #    refused a --preset resume, so OLD binaries cannot be compared on one)
  for case in "--dataset $SYN --model mlp --loss triplet --epochs 6 --checkpoint-every 2 --validation-fraction 0.2" \
              "--dataset $DEB --recipe ours --model selfattn --layers 2 --heads 4 --ff 256 --rho 256 --batch-size 32 --epochs 1 --max-steps 8 --checkpoint-every 4"; do
    tag=$(echo "$case" | md5sum | cut -c1-6)
    for b in old new; do bin=$OLD; [ $b = new ] && bin=$NEW
      rm -rf $W/rs-$tag-$b $W/rs2-$tag-$b
      timeout 900 $bin train $case $CPU --checkpoint-dir $W/rs-$tag-$b > $W/rs-$tag-$b.full.log 2>&1
      first=$(ls $W/rs-$tag-$b/step-*.pt | head -1)
      timeout 900 $bin train $case $CPU --checkpoint-dir $W/rs2-$tag-$b --resume $first 2>&1 | filt > $W/resume-$tag.$b.txt
      filt < $W/rs-$tag-$b.full.log > $W/rs-$tag-$b.full.txt
    done
    diff -q $W/resume-$tag.old.txt $W/resume-$tag.new.txt > /dev/null && echo "resume $tag: identical ($(grep -c '^epoch' $W/resume-$tag.new.txt) rows after the resume; $(grep -c resumed $W/resume-$tag.new.txt) resumed line)" || { echo "resume $tag: DIFFERENT"; diff $W/resume-$tag.old.txt $W/resume-$tag.new.txt | head; }
    # the resumed run's last row equals the uninterrupted run's
    diff <(grep '^epoch' $W/rs-$tag-new.full.txt | tail -1) <(grep '^epoch' $W/resume-$tag.new.txt | tail -1) > /dev/null && echo "  resumed = uninterrupted (last row)" || echo "  resumed != uninterrupted"
  done
}
if [ -n "${ONLY:-}" ]; then "$ONLY"; exit; fi
base; more; resume
