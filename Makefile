# racklab: build, test, lint, demo.
GO        ?= go
BIN       := bin
TRACES    ?= ../shared/traces
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build test lint demo bench-sim clean tools

build:
	$(GO) build -o $(BIN)/ ./datagen ./bench

# The README's test command: vet, lint and every test.
test: lint
	$(GO) test -count=1 ./...

tools:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: tools
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

# The main job: FIFO, Fair and Capacity on the FB-2009 trace, 20 racks × 30 hosts.
demo: build
	$(BIN)/bench sim --swim $(TRACES)/swim/FB-2009_samples_24_times_1hr_0.tsv \
		--racks 20 --hosts-per-rack 30 --policies fifo,fair,capacity --out results/fb2009

# Simulator benchmarks of docs/benchmarks.md.
bench-sim: build
	$(GO) test -run '^$$' -bench . -benchmem ./coordinator/engine/ ./bench/sim/

clean:
	rm -rf $(BIN) results
