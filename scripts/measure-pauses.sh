#!/usr/bin/env bash
# Measures the stop-the-world pause each capture method costs a real Go
# process: testdata/gen/pausetarget parks N goroutines, serves
# net/http/pprof and reports the pauses it saw during each request
# (runtime/metrics /sched/pauses/total/other:seconds, at the histogram
# bucket's upper bound). Figures in docs/modes.md and docs/fleet.md.
#
#   scripts/measure-pauses.sh [N...]         default: 1000 20000
#   DEPTH=0 scripts/measure-pauses.sh 1000    goroutines parked 0 frames deep (default: 10, 20 or 30)
#   ROUNDS=5 GOMAXPROCS=1 scripts/measure-pauses.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/pausetarget
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./testdata/gen/pausetarget
rounds=${ROUNDS:-3}
for n in "${@:-1000 20000}"; do
	for n1 in $n; do
		coproc TARGET { "$bin" -goroutines "$n1" -depth "${DEPTH:--1}"; }
		read -r line <&"${TARGET[0]}"
		addr=$(echo "$line" | awk '{print $2}')
		ctl=$(echo "$line" | awk '{print $4}')
		for _ in $(seq "$rounds"); do
			for q in "goroutine?debug=2" "goroutine?debug=1" "goroutine?debug=0" "trace?seconds=0.001"; do
				curl -sf -o /dev/null "http://$addr/debug/pprof/$q"
			done
		done
		curl -sf "http://$ctl/stats" | N=$n1 python3 -c '
import json, os, sys
d = json.load(sys.stdin)
by = {}
for r in d["requests"]:
    by.setdefault(r["path"].rsplit("/", 1)[1] + "?" + r["query"], []).append(r)
n = int(os.environ["N"])
for k, rs in by.items():
    longest = sorted(r["pause_max_ns"] / 1e6 for r in rs)
    print("%7d goroutines  %-22s longest pause %s ms (%s pauses per request)  per 1k goroutines: %.3f–%.3f ms" % (
        n, k, "–".join("%.3f" % x for x in (longest[0], longest[-1])), rs[0]["pauses"], longest[0] * 1000 / n, longest[-1] * 1000 / n))
'
		kill "$TARGET_PID"
		wait "$TARGET_PID" 2>/dev/null || true
	done
done
