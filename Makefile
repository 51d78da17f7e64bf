# stackdump — see README.md. `make demo` runs the main job; `make test` passes the tests.
GO        ?= go
FUZZTIME  ?= 3s
BIN       := bin/stackdump

.PHONY: all build test vet fuzz bench demo clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/stackdump

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

# go vet, every test, then each fuzz target for $(FUZZTIME).
test: vet
	$(GO) test -count=1 ./...
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

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
