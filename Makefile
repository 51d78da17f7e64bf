# stackdump — see README.md. `make demo` runs the main job; `make test` passes the tests.
GO        ?= go
FUZZTIME  ?= 3s
BIN       := bin/stackdump
# The library is the root module (go 1.24: what services and test suites
# import); the CLI is the module in cmd/stackdump, which requires it
# through a replace. bench/ and leakcheck/compat are modules of their own.
CLI       := cmd/stackdump
# The oldest Go the library supports (go.mod's go line), whose toolchain
# `make test` fetches and runs the library's tests with (scripts/oldest-go.sh).
OLDEST_GO ?= go1.24.11
# The go.mod with a golang.org/x/exp that reads go 1.26 traces, for the
# tests that compare with it (the go.mod's x/exp predates that format).
XEXP_MOD  := internal/tracesnap/testdata/xexp.mod

.PHONY: all build test vet fuzz bench demo clean leakcheck-compat goleak-swap test-oldest-go

all: build

# The commit goes in by -ldflags too, for the builds go build does not stamp
# (a git worktree, GOFLAGS=-buildvcs=false): stackdump --version names it.
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)
DIRTY     := $(if $(shell git status --porcelain 2>/dev/null | head -c1),true,false)

build:
	$(GO) build -C $(CLI) -ldflags "-X main.commit=$(COMMIT) -X main.dirty=$(DIRTY)" -o $(abspath $(BIN)) .

# go vet of every module (bench/ is built by it), and gofmt.
vet:
	$(GO) vet ./...
	cd $(CLI) && $(GO) vet ./...
	cd leakcheck/compat && $(GO) vet ./... && $(GO) vet -tags goleak ./...
	cd bench && $(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

# go vet, every test of the library and of the CLI, the x/exp/trace
# reference, the library's tests with the oldest Go it supports, the
# goleak compatibility suite, then each fuzz target for $(FUZZTIME).
test: vet
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -modfile=$(XEXP_MOD) ./internal/tracesnap ./formats/exectrace
	cd $(CLI) && $(GO) test -count=1 ./...
	$(MAKE) test-oldest-go
	$(MAKE) leakcheck-compat
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The library's packages built, vetted and tested with $(OLDEST_GO)
# (fetched once with GOTOOLCHAIN; skipped with a message when it cannot be).
test-oldest-go:
	OLDEST_GO=$(OLDEST_GO) scripts/oldest-go.sh

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
