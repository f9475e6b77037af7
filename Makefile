# bitsieve — build, run and test. `make run` and `make test` are all a new user needs.
GO      ?= go
BIN     := bin/bitsieve
PKGS    := ./...

.PHONY: deps build run test test-long cross bench bench-smoke bench-cluster cluster-chaos nats-server fuzz-smoke lint clean corpora loadtest loadtest-heavy

deps:
	@echo "downloading modules…"
	@$(GO) mod download

build: deps
	@echo "building $(BIN)…"
	$(GO) build -o $(BIN) ./cmd/bitsieve

run: build
	./$(BIN) serve

# `make test` is the quick suite: go test -short, where the long sweeps are
# shortened and the Go-tree index, the 50 MB documents and the browser test
# are skipped. `make test-long` runs what `make test` leaves out: the whole
# suite without -short, then the packages where goroutines share state again
# under the race detector, in short mode and without the brute-force
# exactness sweeps (the plain run has them; under -race they take minutes),
# with a timeout that outlasts a busy machine, and a cluster on loopback
# under the race detector. CI runs both.
RACE_PKGS := ./index ./internal/segment ./internal/strcache ./query ./tokenize ./web
RACE_SKIP := ^(TestExactGenerated|TestExactSample|TestInvertedEqualsSignature)$$

test: deps
	@echo "vetting…"
	$(GO) vet $(PKGS)
	@echo "running tests (quick suite; make test-long runs the race and long runs)…"
	$(GO) test -short -count=1 $(PKGS)

test-long: deps
	@echo "vetting…"
	$(GO) vet $(PKGS)
	@echo "running the whole test suite without -short (several minutes)…"
	$(GO) test -count=1 $(PKGS)
	@echo "running $(RACE_PKGS) under the race detector…"
	$(GO) test -race -short -count=1 -timeout 30m -skip '$(RACE_SKIP)' $(RACE_PKGS)
	@echo "running a cluster on loopback under the race detector…"
	$(GO) test -race -count=1 -timeout 30m -run '^TestClusterEqualsOneIndex$$' ./cluster

# Windows and macOS builds, tests included, must keep compiling; Linux is the
# platform the tests run on.
cross: deps
	@echo "compiling for windows and darwin…"
	GOOS=windows $(GO) build $(PKGS)
	GOOS=windows $(GO) vet $(PKGS)
	GOOS=darwin $(GO) build $(PKGS)
	GOOS=darwin $(GO) vet $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

# Smoke benchmark for CI, a few seconds: both engines on the embedded sample
# (the default index when $BITSIEVE_INDEX names none), 200 sampled queries
# and the first 100 of each query file of bench/queries. Fails on any difference.
# Then every Go benchmark once, so that none of them is left broken.
BENCH_QUERIES ?= bench/queries/*.txt
bench-smoke: build
	BITSIEVE_INDEX="$${TMPDIR:-/tmp}/bitsieve-no-index" ./$(BIN) bench --quiet --sample 200 --max-queries 100 --reps 1 --qps-passes 1 $(BENCH_QUERIES)
	$(GO) test -run='^$$' -bench=. -benchtime=1x $(PKGS)

# The cluster on loopback: three NATS servers and 1, 2 and 4 nodes in one
# process; search latency beside the same shards searched in process,
# throughput, and the takeover of a node cut off (docs/BENCHMARKS.md).
bench-cluster: deps
	$(GO) test -run='^$$' -bench='Cluster(Search|Throughput)' -benchtime=3000x ./cluster
	$(GO) test -run='^$$' -bench=ClusterTakeover -benchtime=5x ./cluster

# The kill test of the cluster, CLUSTER_TRIALS times (each a node and then
# a NATS server killed under load; make test-long runs it once).
CLUSTER_TRIALS ?= 20
cluster-chaos: deps
	BITSIEVE_CLUSTER_TRIALS=$(CLUSTER_TRIALS) $(GO) test -count=1 -timeout 60m -run TestClusterSurvivesKills -v ./cmd/bitsieve

# The NATS server the cluster's tests start: the version go.mod pins, as
# bin/nats-server (the tests build their own into the cache directory).
nats-server: deps
	$(GO) build -o bin/nats-server github.com/nats-io/nats-server/v2

# Every fuzz target for FUZZTIME each: a bounded smoke run for CI, which
# prints the inputs each target tried (scripts/fuzz-smoke.sh).
FUZZTIME ?= 10s
fuzz-smoke:
	FUZZTIME=$(FUZZTIME) GO='$(GO)' bash scripts/fuzz-smoke.sh

# gofmt, vet and staticcheck (pinned; go run fetches it the first time).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: deps
	@echo "checking formatting…"
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	@echo "vetting…"
	$(GO) vet $(PKGS)
	@echo "running staticcheck…"
	$(GO) run $(STATICCHECK) $(PKGS)

clean:
	rm -rf bin

# Benchmark corpora, prepared in a cache outside the repository (docs/corpora.md):
# make corpora [BITSIEVE_CORPORA=dir]
corpora:
	BITSIEVE_CORPORA='$(BITSIEVE_CORPORA)' GO='$(GO)' bash scripts/corpora.sh

# HTTP load test, loopback only: 64 clients for 30 s against `bitsieve serve`
# on the prose corpus, indexed first if need be (make corpora prepares it):
# make loadtest [LOADTEST_INDEX=dir] [LOADTEST_QUERIES='glob'] [LOADTEST_FLAGS='-d 10s']
LOADTEST_INDEX   ?= /var/tmp/bitsieve-prose-index
LOADTEST_QUERIES ?= bench/queries/*.txt
loadtest: build
	@./$(BIN) stats --index '$(LOADTEST_INDEX)' >/dev/null 2>&1 || ./$(BIN) index --rebuild --index '$(LOADTEST_INDEX)' "$${BITSIEVE_CORPORA:-/var/tmp/bitsieve-corpora}/prose.jsonl"
	$(GO) run ./tools/loadtest -bin $(BIN) -index '$(LOADTEST_INDEX)' -queries '$(LOADTEST_QUERIES)' -c 64 -d 30s $(LOADTEST_FLAGS)

# Fair admission under a flood: 8 clients send cheap probes while 24 others
# send expensive queries back to back, for 15 s (same index as loadtest;
# LOADTEST_FLAGS='-heavy-c 0' measures the probes alone). The Go tree:
# LOADTEST_INDEX=dir LOADTEST_PROBES=tools/loadtest/gotree-cheap.txt
# LOADTEST_HEAVY=tools/loadtest/gotree-heavy.txt (docs/BENCHMARKS.md).
LOADTEST_PROBES ?= tools/loadtest/probes.txt
LOADTEST_HEAVY  ?= tools/loadtest/prose-heavy.txt
loadtest-heavy: build
	@./$(BIN) stats --index '$(LOADTEST_INDEX)' >/dev/null 2>&1 || ./$(BIN) index --rebuild --index '$(LOADTEST_INDEX)' "$${BITSIEVE_CORPORA:-/var/tmp/bitsieve-corpora}/prose.jsonl"
	$(GO) run ./tools/loadtest -bin $(BIN) -index '$(LOADTEST_INDEX)' -queries '$(LOADTEST_PROBES)' -c 8 -d 15s -heavy-queries '$(LOADTEST_HEAVY)' -heavy-c 24 $(LOADTEST_FLAGS)
