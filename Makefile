# racklab: build, test, lint, demo.
# sudo's secure_path leaves out Go's usual install directory: find it there too.
GO        ?= $(shell command -v go 2>/dev/null || { test -x /usr/local/go/bin/go && echo /usr/local/go/bin/go; } || echo go)
# staticcheck and the tests run go themselves: let them find the same one
ifneq ($(findstring /,$(GO)),)
export PATH := $(patsubst %/,%,$(dir $(GO))):$(PATH)
endif
BIN       := bin
TRACES    ?= traces
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build test lint demo demo-sim bench-sim clean clean-results tools lab-up lab-down lab-test

# Root building a clone that a normal user owns (a root shell; sudo is
# let through by git itself) meets git's "dubious ownership" refusal, and
# go build's revision stamping fails. Running make here already runs this
# tree's code, so git is told to trust the tree for these commands only
# (GIT_CONFIG_* is git's command-line scope). If git still cannot read the
# checkout, the binaries are built without the revision and make says so.
TRUST_TREE := GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$(CURDIR)"

# Under sudo, whatever a target creates in the tree (bin/, results/) is
# given back to the user who ran sudo, so that their next make works.
GIVE_BACK = if [ "$$(id -u)" = 0 ] && [ -n "$${SUDO_UID:-}" ] && [ "$${SUDO_UID}" != 0 ]; then \
	  for d in $(1); do [ ! -e "$$d" ] || chown -R "$${SUDO_UID}:$${SUDO_GID:-$${SUDO_UID}}" "$$d"; done; fi

build:
	@vcs=auto; \
	if ! $(TRUST_TREE) git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  vcs=false; \
	  if [ -e .git ]; then echo "build: git cannot read this checkout; building without the revision stamp" >&2; fi; \
	fi; \
	echo "$(GO) build -buildvcs=$$vcs -o $(BIN)/ ./coordinator ./worker ./datagen ./bench"; \
	$(TRUST_TREE) $(GO) build -buildvcs=$$vcs -o $(BIN)/ ./coordinator ./worker ./datagen ./bench; \
	status=$$?; $(call GIVE_BACK,$(BIN)); exit $$status

# The README's test command: vet, lint and every test. The flat-vs-switched
# fidelity test compares two emulated runs' timings: it runs alone after the
# others, so that their load does not weigh on one mode and not the other.
# The worker's packages (goroutines per transfer, sockets, a shared store)
# run again under the race detector (about 20 s).
test: lint
	$(GO) test -count=1 -skip '^TestFlatMatchesSwitched$$' ./...
	$(GO) test -count=1 -race ./worker/...
	$(GO) test -count=1 -run '^TestFlatMatchesSwitched$$' ./bench/campaign

tools:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: tools
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

# The demo campaign (campaigns/demo.yaml): FIFO, Fair and Capacity twice
# each in simulation, then FIFO against Fair on a 3-rack × 3-host emulated
# cluster (network namespaces, HTB-shaped rack links; needs root or
# CAP_NET_ADMIN), and its report. A rerun resumes: finished runs are kept.
# FRESH=1 starts over (make demo FRESH=1) after a change to the code.
demo: build
	@if [ -n "$(FRESH)" ]; then echo "demo: FRESH=1: removing results/demo"; rm -rf results/demo; \
	elif [ -e results/demo ]; then echo "demo: results/demo exists: finished runs are kept, not redone (make demo FRESH=1 starts over)"; fi
	@$(BIN)/bench run campaigns/demo.yaml --out results/demo; \
	status=$$?; $(call GIVE_BACK,results); exit $$status

# FIFO, Fair and Capacity on the FB-2009 trace, 20 racks × 30 hosts, simulated.
demo-sim: build
	@$(BIN)/bench sim --swim $(TRACES)/swim/FB-2009_samples_24_times_1hr_0.tsv \
		--racks 20 --hosts-per-rack 30 --slots 8 --oversubscription 5 \
		--policies fifo,fair,capacity --out results/fb2009; \
	status=$$?; $(call GIVE_BACK,results); exit $$status

# Simulator benchmarks of docs/benchmarks.md.
bench-sim: build
	$(GO) test -run '^$$' -bench . -benchmem ./coordinator/engine/ ./bench/sim/

# The lab in a box (lab/lab.sh; ansible/README.md): N hosts on this
# machine, each a network namespace with its own sshd, for ansible/. As
# root, with Debian's ansible and openssh-server installed. lab-test runs
# the whole path: up, site.yml, a remote campaign (kernel against engine
# cross-rack bytes, within 3%), teardown.yml, down, checking nothing is left.
N ?= 3
lab-up:
	lab/lab.sh up $(N)

lab-down:
	lab/lab.sh down

lab-test: build
	lab/lab.sh test $(N)

# clean removes what make builds and never results/: campaigns write
# their measured runs there (an emulated set takes over an hour), so they
# go only when named: make clean-results.
clean:
	rm -rf $(BIN)

clean-results:
	rm -rf results
