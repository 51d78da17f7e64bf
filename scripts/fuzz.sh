#!/usr/bin/env bash
# Runs every Fuzz target of the main module for $FUZZTIME (default 3s).
# New crashers land in the package's testdata/fuzz and fail the run.
# $FUZZMINTIME (default 2s) bounds the minimizing of each new input: with
# go test's default of 60s, minimizing the corpus's multi-KiB seeds takes
# most of a one-minute run (FuzzPprof ran 24 inputs in a minute with 10s,
# 159,000 with 1s; docs/RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-3s}
fuzzmintime=${FUZZMINTIME:-2s}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' || true)
	for t in $targets; do
		echo "fuzz $pkg $t ($fuzztime)"
		go test -run='^$' -fuzz="^$t\$" -fuzztime="$fuzztime" -fuzzminimizetime="$fuzzmintime" "$pkg" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; rm -f /tmp/fuzz.$$.log; exit 1; }
	done
done
rm -f /tmp/fuzz.$$.log
