# racklab: build, test, lint, demo.
GO        ?= go
BIN       := bin
TRACES    ?= ../shared/traces
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build test lint demo demo-sim bench-sim bench-live clean tools

build:
	$(GO) build -buildvcs=auto -o $(BIN)/ ./coordinator ./worker ./datagen ./bench

# The README's test command: vet, lint and every test.
test: lint
	$(GO) test -count=1 ./...

tools:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: tools
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

# The demo campaign (campaigns/demo.yaml): FIFO, Fair and Capacity twice
# each in simulation, then FIFO against Fair on a 3-rack × 3-host emulated
# cluster (network namespaces, HTB-shaped rack links; needs root or
# CAP_NET_ADMIN), and its report.
demo: build
	$(BIN)/bench run campaigns/demo.yaml --out results/demo

# FIFO, Fair and Capacity on the FB-2009 trace, 20 racks × 30 hosts, simulated.
demo-sim: build
	$(BIN)/bench sim --swim $(TRACES)/swim/FB-2009_samples_24_times_1hr_0.tsv \
		--racks 20 --hosts-per-rack 30 --slots 8 --oversubscription 5 \
		--policies fifo,fair,capacity --out results/fb2009

# Simulator benchmarks of docs/benchmarks.md.
bench-sim: build
	$(GO) test -run '^$$' -bench . -benchmem ./coordinator/engine/ ./bench/sim/

clean:
	rm -rf $(BIN) results
