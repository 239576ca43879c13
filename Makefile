GO ?= go
BIN := bin/oltpbench
MARIADB_DIR ?= $(CURDIR)/.mariadb
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: build test test-all demo plan-examples bench-plan bench bench-go bench-sysbench bench-lua bench-metrics bench-loader bench-tpcc bench-ch bench-s3 bench-verdict bench-report db-start db-stop vet clean soak fuzz

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/oltpbench

vet:
	gofmt -l . | (! grep .) && $(GO) vet ./...

# Unit and integration tests; integration tests run against a throwaway MariaDB.
test: build
	scripts/test.sh

# make test, then what is too long for every change: the example plans on three
# versions, every fuzz target for FUZZTIME_ALL (1m) and a ten-minute soak.
test-all: test plan-examples
	$(MAKE) fuzz FUZZTIME=$(or $(FUZZTIME_ALL),1m)
	SOAK_MIN=10 $(MAKE) soak

demo: build
	scripts/demo.sh

bench: bench-go bench-sysbench bench-loader bench-tpcc bench-s3

bench-sysbench: build
	scripts/bench-sysbench.sh

# sysbench's own Lua files under the real sysbench (LuaJIT) and in oltpbench's embedded Lua: CPU per event, memory.
bench-lua: build
	scripts/bench-lua.sh

# The cost of --metrics-addr scraped every second: QPS and client CPU per query, with / without.
bench-metrics: build
	scripts/bench-metrics.sh

db-start:
	scripts/mariadb-start.sh $(MARIADB_DIR)

db-stop:
	scripts/mariadb-stop.sh $(MARIADB_DIR)

clean:
	rm -rf bin

bench-loader: build
	scripts/bench-loader.sh

bench-tpcc: build
	scripts/bench-tpcc.sh

# CH-benCHmark against go-tpc's ch: prepare wall time, tpmC and client CPU per New-Order with analytical streams, per-query latency.
bench-ch: build
	scripts/bench-ch.sh

# report compare's verdicts on a real server: the same cell twice, and the server on one CPU.
bench-verdict: build
	scripts/bench-verdict.sh

# report compare over 20 versions x 24 cells x 5 repeats: wall time and peak RSS per format.
bench-report: build
	scripts/bench-report.sh

# Every example plan in deploy/plans, scaled down, on two server setups, with report compare's verdicts.
plan-examples: build
	scripts/plan-examples.sh

# A plan against the shell loops it replaces (real sysbench, oltpbench sysbench): cost around each cell, QPS.
bench-plan: build
	scripts/bench-plan.sh

# CSV to object storage against the upload floor, and its memory.
bench-s3: build
	scripts/bench-s3.sh

# Go benchmarks of the per-row hot paths, with allocations (must stay 0 per row).
bench-go:
	$(GO) test -run=NONE -bench=. -benchmem ./...

# An hour's soak (SOAK_MIN minutes): sysbench and TPC-C clients through server restarts; fails on RSS/fd growth or a lost event.
soak: build
	scripts/soak.sh

# Every Go fuzz target for FUZZTIME each (default 10m), FUZZ_JOBS at a time; findings land in testdata/fuzz.
FUZZTIME ?= 10m
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh
