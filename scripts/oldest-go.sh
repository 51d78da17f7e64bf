#!/usr/bin/env bash
# Builds and tests the library with the oldest Go it supports: go.mod's go
# line (1.24), as the toolchain $OLDEST_GO (default go1.24.11), which
# GOTOOLCHAIN fetches once from the module proxy (76 MB). Every package of
# the root module is vetted (compiled with its tests); the packages that
# services and test suites link are tested: the model, the codecs and the
# door, grouping, leakcheck, the dumper and their internals. What needs a
# newer runtime (trace mode's go 1.26 decoder, labels printed by the
# runtime, the Go 1.27 leak profile) is refused with a clear error there,
# and its tests skip. Skipped with a message when the toolchain cannot be
# fetched. Run by `make test` (make test-oldest-go).
set -euo pipefail
cd "$(dirname "$0")/.."
oldest=${OLDEST_GO:-go1.24.11}
if ! out=$(GOTOOLCHAIN=$oldest go version 2>&1); then
	echo "oldest-go: $oldest could not be fetched; the library is not tested with it:"
	echo "$out" | tail -n 3
	exit 0
fi
echo "oldest-go: $out"
export GOTOOLCHAIN=$oldest
go vet ./...
go test -count=1 ./stack/... ./dedupe/... ./leakcheck/... ./dumper/...
# The codecs, the door and the internals in -short: their long tests are
# about the input, not the runtime (internal/layers checks the package
# graph, internal/judged scores verdicts: no toolchain changes either, and
# the default run covers both).
go test -short -count=1 ./formats/... $(go list ./internal/... | grep -v -e '/internal/layers$' -e '/internal/judged$')
