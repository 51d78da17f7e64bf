#!/usr/bin/env bash
# Runs every Fuzz target of the library (the root module) for $FUZZTIME
# (default 3s); the CLI module has none.
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
	# internal/tracesnap's targets compare with golang.org/x/exp/trace at a
	# version that reads go 1.26 traces: the go.mod's predates them.
	modfile=()
	case $pkg in */internal/tracesnap) modfile=(-modfile=internal/tracesnap/testdata/xexp.mod) ;; esac
	for t in $targets; do
		echo "fuzz $pkg $t ($fuzztime)"
		for try in 1 2; do
			if go test ${modfile[@]+"${modfile[@]}"} -run='^$' -fuzz="^$t\$" -fuzztime="$fuzztime" -fuzzminimizetime="$fuzzmintime" "$pkg" >/tmp/fuzz.$$.log 2>&1; then
				break
			fi
			# Go's fuzzer can end a short run with "context deadline
			# exceeded" while a worker is still minimizing a new (not
			# failing) input. That is no finding: try once more. A real
			# failure writes its input to testdata/fuzz and is reported.
			if [ "$try" = 1 ] && grep -q 'context deadline exceeded' /tmp/fuzz.$$.log && ! grep -q 'Failing input written to' /tmp/fuzz.$$.log; then
				echo "fuzz $pkg $t: the fuzzer timed out minimizing a new input; running again"
				continue
			fi
			cat /tmp/fuzz.$$.log
			rm -f /tmp/fuzz.$$.log
			exit 1
		done
	done
done
rm -f /tmp/fuzz.$$.log
