#!/usr/bin/python3
"""Summarise the brown 2000-step logs (issue 28 §4): the test kNN curve of each row.

For each log given: kNN at steps 250, 500, ..., the last step, the last six evaluations'
mean, min / max / mean over all evaluations, the kept model's kNN ("final:" line), and --
against the first log (Ours) -- at how many common evaluation steps the row is ahead,
behind or level. A resumed run repeats steps past its checkpoint; the last line for a step
is kept (resumption is an exact continuation, so repeated lines agree).

    ./summary.py ours.log ours+ps.log approx-emd.log sset.log
"""
import re
import sys

def curve(path):
    knn, final = {}, None
    for line in open(path):
        m = re.match(r"epoch \d+\s+step (\d+)\s.*\bkNN ([0-9.]+)", line)
        if m and "[best" not in line:  # the kept model's line repeats the last step
            knn[int(m.group(1))] = float(m.group(2))
        m = re.match(r"final: kNN accuracy ([0-9.]+)", line)
        if m:
            final = float(m.group(1))
    return knn, final

logs = sys.argv[1:]
ref, _ = curve(logs[0])
for path in logs:
    knn, final = curve(path)
    steps = sorted(knn)
    if not steps:
        print(f"{path}: no evaluation lines")
        continue
    vals = [knn[s] for s in steps]
    marks = ", ".join(f"{s}: {knn[s]:.3f}" if s in knn else f"{s}: (not in the log)"
                      for s in range(250, steps[-1] + 1, 250))
    last6 = vals[-6:]
    print(f"{path}: {len(steps)} evaluations, steps {steps[0]}..{steps[-1]}")
    print(f"  every 250 steps: {marks}")
    print(f"  last {knn[steps[-1]]:.3f} (last six mean {sum(last6) / len(last6):.3f}); "
          f"all within {min(vals):.3f}-{max(vals):.3f}, mean {sum(vals) / len(vals):.3f}; "
          f"kept model {final if final is None else f'{final:.3f}'}")
    common = [s for s in steps if s in ref]
    if path != logs[0] and common:
        ahead = sum(knn[s] > ref[s] for s in common)
        behind = sum(knn[s] < ref[s] for s in common)
        print(f"  against {logs[0]} at {len(common)} common steps: ahead {ahead}, "
              f"behind {behind}, level {len(common) - ahead - behind}")
