# Drift Gardener. `make demo` runs the main job on the local stack; `make test` runs every check.
GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
BENCH_DATA  ?= $(CURDIR)/../shared/bench

.PHONY: all build test vet staticcheck unit demo bench fuzz fmt clean

all: build

build:
	$(GO) build -o $(BIN)/gardener ./cmd/gardener

# test is what CI runs: formatting, vet, staticcheck, then every Go test (unit, browser,
# store drivers against moto_server and dynalite, ASL and template validation, end to end).
test: vet staticcheck unit

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

unit:
	$(GO) test -timeout 60m ./...

demo: build
	$(BIN)/gardener demo

# bench prints the figures the issues ask for. The locate-engine accuracy runs on ../shared/bench
# when it is there (it lives outside the repository) and says so when it is not.
bench:
	SIMILO_BENCH_DIR=$(BENCH_DATA) $(GO) test -count=1 -run '^TestSimiloBench$$' -v ./pkg/similo/
	$(GO) test -run '^$$' -bench BenchmarkLocate -benchtime 2s -cpu 1 ./pkg/similo/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./pkg/browser/
	$(GO) test -run '^$$' -bench BenchmarkRepair -benchtime 1x ./tests/e2e/
	$(GO) test -run '^$$' -bench . -benchtime 1x ./pkg/radar/
	$(GO) test -run '^$$' -bench 'Benchmark(Stage|SaveTest)$$' -benchtime 2000x ./pkg/embedded/
	$(GO) test -run '^$$' -bench 'Benchmark(Stage|SaveTest)(Moto|Dynalite)$$' -benchtime 100x ./pkg/dynamo/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecodeSteps -fuzztime 30s ./pkg/gardener/
	$(GO) test -run '^$$' -fuzz FuzzScreenKeepsChecks -fuzztime 30s ./pkg/gardener/
	$(GO) test -run '^$$' -fuzz FuzzParseAndRun -fuzztime 30s ./pkg/local/asl/
	$(GO) test -run '^$$' -fuzz FuzzPattern -fuzztime 30s ./pkg/local/eventbus/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./pkg/local/template/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(BIN)
