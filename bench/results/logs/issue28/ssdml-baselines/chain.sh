#!/bin/sh
# The five, one after another (each resumable: see run.sh).
for r in seraph lrml isdml apllr apit; do ./run.sh $r; done
