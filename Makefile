# stackdump — see README.md. `make demo` runs the main job; `make test` passes the tests.
GO        ?= go
FUZZTIME  ?= 3s
BIN       := bin/stackdump

.PHONY: all build test vet fuzz bench demo clean leakcheck-compat goleak-swap

all: build

# The commit goes in by -ldflags too, for the builds go build does not stamp
# (a git worktree, GOFLAGS=-buildvcs=false): stackdump --version names it.
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)
DIRTY     := $(if $(shell git status --porcelain 2>/dev/null | head -c1),true,false)

build:
	$(GO) build -ldflags "-X main.commit=$(COMMIT) -X main.dirty=$(DIRTY)" -o $(BIN) ./cmd/stackdump

vet:
	$(GO) vet ./...
	cd leakcheck/compat && $(GO) vet ./... && $(GO) vet -tags goleak ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

# go vet, every test, then each fuzz target for $(FUZZTIME).
test: vet
	$(GO) test -count=1 ./...
	$(MAKE) leakcheck-compat
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# leakcheck against goleak (leakcheck/compat is its own module): the compatibility tests on
# leakcheck, then on goleak v1.3.0 (-tags goleak: the expectations are goleak's behaviour), then
# goleak v1.3.0's own suite from the module cache through a shim, printing which tests pass.
leakcheck-compat:
	cd leakcheck/compat && $(GO) test -count=1 -skip '^TestGoleakSuite$$' ./...
	cd leakcheck/compat && $(GO) test -count=1 -tags goleak ./...
	cd leakcheck/compat && $(GO) test -count=1 -run '^TestGoleakSuite$$' -v .

# zap's, fx's and gocron's leak tests with their goleak import swapped for leakcheck, with and
# without an injected leak (downloads them from the module proxy; minutes; docs/leaks.md).
goleak-swap:
	cd leakcheck/compat && $(GO) run ./cmd/goleakswap

# Each fuzz target for a minute.
fuzz:
	FUZZTIME=1m scripts/fuzz.sh

# Peers side by side in one run; prints the ratio table (bench/ is its own module).
bench:
	cd bench && $(GO) run ./cmd/benchtable

demo: build
	scripts/demo.sh

clean:
	rm -rf bin demo
