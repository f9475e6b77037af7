# bitsieve — build, run and test. `make run` and `make test` are all a new user needs.
GO      ?= go
BIN     := bin/bitsieve
PKGS    := ./...

.PHONY: build run test bench lint clean corpora

build:
	$(GO) build -o $(BIN) ./cmd/bitsieve

run: build
	./$(BIN) demo

test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet $(PKGS)

clean:
	rm -rf bin

# Benchmark corpora, prepared in a cache outside the repository (docs/corpora.md):
# make corpora [BITSIEVE_CORPORA=dir]
corpora:
	BITSIEVE_CORPORA='$(BITSIEVE_CORPORA)' GO='$(GO)' bash scripts/corpora.sh
