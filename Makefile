# Drift Gardener. `make demo` runs the main job on the local stack; `make test` runs every check.
GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
BENCH_DATA  ?= $(CURDIR)/../shared/bench
# The Python test tools, pinned; installed into VENV only when they are not on PATH already.
VENV        := $(CURDIR)/.venv
MOTO_VERSION    := 5.2.1
CFNLINT_VERSION := 1.51.0
PYTHON      ?= python3
# Tests find moto_server and cfn-lint on PATH; the project's own venv comes first when it exists.
export PATH := $(VENV)/bin:$(PATH)

.PHONY: all build test vet staticcheck unit demo bench fuzz fmt clean tools pytools chromium screenshots

all: build

# VERSION is what `gardener --version` prints: the commit this tree was built from.
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/gardener ./cmd/gardener

# test is what CI runs: formatting, vet, staticcheck, then every Go test (unit, browser,
# store drivers against moto_server and dynalite, ASL and template validation, end to end).
test: tools vet staticcheck unit

# tools brings what the tests need and a non-root user can install: the pinned Node tools
# (statelint, asl-validator, dynalite) and the pinned Python tools (moto_server, cfn-lint).
tools: node_modules/.package-lock.json pytools

# npm writes node_modules/.package-lock.json on every install, so this reruns `npm ci` when
# node_modules is missing or older than package-lock.json.
node_modules/.package-lock.json: package-lock.json
	@command -v npm >/dev/null || { echo "make: npm is missing: sudo apt-get install -y nodejs npm (see README.md, Prerequisites)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

pytools:
	@if command -v moto_server >/dev/null && command -v cfn-lint >/dev/null; then :; else $(MAKE) --no-print-directory $(VENV)/.installed; fi

$(VENV)/.installed:
	@$(PYTHON) -m venv $(VENV) || { echo "make: cannot create a Python venv: sudo apt-get install -y python3-venv"; exit 1; }
	$(VENV)/bin/pip install --quiet 'moto[server]==$(MOTO_VERSION)' 'cfn-lint==$(CFNLINT_VERSION)'
	@touch $@

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

# The browser packages take minutes each and the rest seconds. go test runs -p packages at a
# time (the cores, two in CI) in the order it is given them, so the slowest go first, longest
# first, and the short ones fill in beside the last of them, instead of one slow package starting
# alone at the end. Every package of ./... that takes more than about twenty seconds is named
# here: one left to its place in ./... (tests/driftgen comes near the end) would start late.
# Every package of ./... is tested once: the slow ones by name, then all the others.
SLOW_PKGS := ./cmd/gardener ./pkg/radar ./tests/e2e ./pkg/browser ./tests/spaapp ./tests/hostilepage ./tests/lambdarie ./tests/hostile ./tests/conformance ./tests/driftgen ./pkg/console ./pkg/local/stack
SLOW_RE   := /(cmd/gardener|pkg/radar|tests/e2e|pkg/browser|tests/spaapp|tests/hostilepage|tests/lambdarie|tests/hostile|tests/conformance|tests/driftgen|pkg/console|pkg/local/stack)$$

# -ldflags=-w links the test binaries without DWARF: nothing reads it in a test run (a panic's
# trace comes from the binary's own tables), and the 47 links took a third less CPU without it
# (seven of the largest: 17.8-20.6 CPU-s, 11.6-12.8 with it), which the browser tests beside them want.
unit:
	$(GO) test -ldflags=-w -timeout 60m $(SLOW_PKGS) $$($(GO) list ./... | grep -Ev '$(SLOW_RE)')

# demo ends by printing the review console's URL; DEMO_FLAGS=--serve keeps it up afterwards.
DEMO_FLAGS ?=
demo: chromium build
	$(BIN)/gardener demo $(DEMO_FLAGS)

# chromium says exactly what is missing before the demo spends time building.
chromium:
	@if [ -n "$$CHROME_PATH" ]; then test -x "$$CHROME_PATH" || { echo "make: CHROME_PATH=$$CHROME_PATH is not an executable"; exit 1; }; \
	elif command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null; then :; \
	else echo "make: Chromium is missing: sudo apt-get install -y chromium (or set CHROME_PATH to a Chrome or Chromium binary)"; exit 1; fi

# screenshots writes a PNG of every review-console page at 1280 and 390 px to docs/console/ (the
# README links them), from the same seeded store and Chromium run that audits each page with axe.
screenshots: chromium
	CONSOLE_SCREENSHOTS=$(CURDIR)/docs/console $(GO) test -count=1 -run '^TestAccessible$$' ./pkg/console/

# bench prints the figures the issues ask for. The locate-engine accuracy runs on ../shared/bench
# when it is there (it lives outside the repository) and says so when it is not: the shipped
# engine's figures, then the leave-one-website-out validation of how its weights and threshold
# are chosen (add -similo.write pkg/similo/weights.go to the second line's -args to refit them),
# then the nested estimates of transfer to unseen websites (three splits, Similo beside).
bench:
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -run '^TestSimiloBench$$' -v ./pkg/similo/
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -timeout 30m -run '^TestSimiloCV$$' -v ./pkg/similo/ -args -similo.cv
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -timeout 60m -run '^TestSimiloTransfer$$' -v ./pkg/similo/ -args -similo.cv
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -timeout 90m -run '^TestSimiloRobust$$' -v ./pkg/similo/ -args -similo.cv
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -run '^TestLocatorWordsBench$$' -v ./pkg/builtin/
	$(GO) test -run '^$$' -bench BenchmarkLocate -benchtime 2s -cpu 1 ./pkg/similo/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./pkg/browser/
	$(GO) test -run '^$$' -bench BenchmarkRepair -benchtime 1x ./tests/e2e/
	$(GO) test -run '^$$' -bench BenchmarkRepair -benchtime 1x ./tests/spaapp/
	$(GO) test -count=1 -timeout 90m -run '^TestGeneratedDriftTable$$' -v ./tests/driftgen/ -args -driftgen.table -driftgen.per-kind 20 -driftgen.seed 20 -driftgen.parallel 2
	$(GO) test -count=1 -timeout 90m -run '^TestCrewdeskDriftTable$$' -v ./tests/driftgen/ -args -driftgen.table -driftgen.per-kind 20 -driftgen.seed 20 -driftgen.parallel 2
	$(GO) test -count=1 -timeout 90m -run '^TestGeneratedDriftTable$$' -v ./tests/driftgen/ -args -driftgen.table -driftgen.per-kind 8 -driftgen.seed 20 -driftgen.parallel 2 -driftgen.no-baseline
	$(GO) test -count=1 -timeout 90m -run '^TestCrewdeskDriftTable$$' -v ./tests/driftgen/ -args -driftgen.table -driftgen.per-kind 8 -driftgen.seed 20 -driftgen.parallel 2 -driftgen.no-baseline
	$(GO) test -run '^$$' -bench . -benchtime 1x ./pkg/radar/
	$(GO) test -count=1 -timeout 30m -run '^TestHostileModelCertifiesNoRegression$$' -v ./tests/hostile/ -args -hostile.all
	$(GO) test -run '^$$' -bench . -benchtime 20x ./pkg/console/
	$(GO) test -run '^$$' -bench BenchmarkSuiteMachineVsRun -benchtime 1x ./cmd/gardener/
	$(GO) test -run '^$$' -bench 'Benchmark(Stage|SaveTest)$$' -benchtime 2000x ./pkg/embedded/
	$(GO) test -run '^$$' -bench 'Benchmark(Stage|SaveTest)(Moto|Dynalite)$$' -benchtime 100x ./pkg/dynamo/
	$(GO) test -run '^$$' -bench 'Benchmark(ReplayAlone|ColdStart)$$' -benchtime 3x -timeout 30m ./tests/scale/
	$(GO) test -run '^$$' -bench 'BenchmarkStagingFanout$$' -benchtime 1x -timeout 60m ./tests/scale/ -args -scale.projects 50 -scale.tests 12 -scale.slots 6
	$(GO) test -run '^$$' -bench 'BenchmarkSuitePerProject$$' -benchtime 1x -timeout 60m ./tests/scale/ -args -scale.projects 10 -scale.tests 5 -scale.slots 6
	$(GO) test -run '^$$' -bench 'BenchmarkSuiteFanout$$' -benchtime 1x -timeout 60m ./tests/scale/ -args -scale.projects 101 -scale.tests 5 -scale.slots 6
	$(GO) test -run '^$$' -bench BrowserFunctions -benchtime 1x -timeout 15m -v ./tests/limits/fnbench/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzStepsRoundTrip -fuzztime 30s ./pkg/gardener/
	$(GO) test -run '^$$' -fuzz FuzzScreenKeepsChecks -fuzztime 30s ./pkg/gardener/
	$(GO) test -run '^$$' -fuzz FuzzParseAndRun -fuzztime 30s ./pkg/local/asl/
	$(GO) test -run '^$$' -fuzz FuzzPattern -fuzztime 30s ./pkg/local/eventbus/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./pkg/local/template/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(BIN) $(VENV)
