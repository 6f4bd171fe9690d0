// Package lambdarie runs every function of template.yaml under the AWS Lambda Runtime Interface
// Emulator, the emulator inside `sam local` and the AWS base images: each is built as its
// deployment builds it (a `bootstrap` for a zip function, the Dockerfile's binary for an image
// function), started under the emulator and invoked over the emulator's HTTP API with the samples
// in events/, and every answer and every error name is compared with the same handler called in
// process through aws-lambda-go's handler wrapper. Both paths use the AWS adapters against one
// moto_server, each function and each path over a fresh table seeded alike.
package lambdarie

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/template"
	"github.com/driftgardener/gardener/pkg/mototest"
	"github.com/driftgardener/gardener/tests/demoapp"

	"go.yaml.in/yaml/v3"
)

func TestMain(m *testing.M) { mototest.Main(m) }

// emulator is the emulator's command; rie/go.mod pins the module it is built from.
const emulator = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"

// invokePath is where the emulator takes an invocation: Lambda's Invoke API, for the one
// function it runs, named "function".
const invokePath = "/2015-03-31/functions/function/invocations"

// samples names the function each sample in events/ is for; every API Gateway event (api-*,
// console-*) is the ApiFunction's.
var samples = map[string]string{
	"run-failed.json":      "EligibilityFunction",
	"gate.json":            "SelfHealFunction",
	"rung-result.json":     "PersistFunction",
	"propagate.json":       "PropagateFunction",
	"triage.json":          "TriageFunction",
	"notification.json":    "NotifyFunction",
	"radar-schedule.json":  "RadarFunction",
	"staging-select.json":  "StagingSelectFunction",
	"dryrun-item.json":     "DryRunFunction",
	"staging-state.json":   "StagingSummaryFunction",
	"suite-schedule.json":  "SuitePlanFunction",
	"suite-item.json":      "SuiteRunFunction",
	"suite-results.json":   "SuiteReportFunction",
	"sweep-completed.json": "", // the staging machine's rule takes it; no function does
}

// borrowed gives the functions without a sample of their own the one their state machine hands
// them: every rung and the staging pass's propose take the gate eligibility answers.
var borrowed = map[string][]string{
	"SuggestFixFunction": {"gate.json"},
	"DiagnoseFunction":   {"gate.json"},
	"ProposeFunction":    {"gate.json"},
}

// notAnEvent is what every function is invoked with last: a payload its event type cannot be
// decoded from, so every function also answers an error through the runtime API.
const notAnEvent = `["not an event"]`

// call is one invocation of a function.
type call struct {
	name    string
	payload []byte
}

// answer is what one invocation answered: the payload, or the error's name and message as
// the runtime API reports them (errorType, errorMessage).
type answer struct {
	Payload      json.RawMessage `json:"payload,omitempty"`
	ErrorType    string          `json:"errorType,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
}

// function is one function of the template and how this test runs it.
type function struct {
	id    string
	fn    handler.Function
	tpl   *template.Function
	calls []call
	// browser: its samples replay tests, in Chromium.
	browser bool
	// bin is the built binary and dir the directory it runs in (/var/task or /opt/gardener).
	bin, dir string
	settings settings
}

// settings are a function's Lambda settings in template.yaml, Globals merged in.
type settings struct {
	MemorySize, Timeout int
	Architectures       []string
}

// TestEveryFunctionUnderTheEmulator: every AWS::Serverless::Function of template.yaml, built as
// its deployment builds it, answers every invocation under the emulator as its handler does in
// process; a template function the test cannot invoke fails it (see plan).
func TestEveryFunctionUnderTheEmulator(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("SKIP: the Lambda Runtime Interface Emulator runs on Linux only; this is %s", runtime.GOOS)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: the go command is not on PATH; install Go (https://go.dev/doc/install)")
	}
	started := time.Now()
	tpl, err := template.Load("../../template.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	functions, problems, err := plan("../../template.yaml", "../../events")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("not every function of template.yaml is invoked under the emulator:\n  %s", strings.Join(problems, "\n  "))
	}
	arch := map[string]bool{}
	for _, f := range functions {
		arch[strings.Join(f.settings.Architectures, ",")] = true
	}
	t.Logf("template.yaml targets %s; the functions are built for linux/%s, this machine, to run under the emulator here", strings.Join(slices.Sorted(maps.Keys(arch)), " and "), runtime.GOARCH)
	chrome, chromeErr := browser.ChromePath()

	// Build while moto_server starts: the emulator and every function's binary. The work
	// directory is short: Chromium's sockets live under a function's TMPDIR, and a socket's
	// path is at most 107 bytes.
	work, err := os.MkdirTemp("", "lrie")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	built := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { built <- build(ctx, gobin, work, functions) }()
	var buildErr error
	var waited sync.Once
	wait := func() { waited.Do(func() { buildErr = <-built }) }
	// A test that skips before the build ends stops it, and removes work only after it.
	t.Cleanup(func() { cancel(); wait() })
	endpoint := mototest.Endpoint(t)
	wait()
	var skip *emulatorBuildError
	if errors.As(buildErr, &skip) {
		t.Skipf("SKIP: the Lambda Runtime Interface Emulator cannot be built here (it comes from the Go module proxy, pinned in tests/lambdarie/rie/go.mod): %v", skip)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Logf("built the emulator and %d functions in %s (load %s)", len(functions), time.Since(started).Round(time.Millisecond), loadavg())

	app := httptest.NewServer(demoapp.New().Handler())
	t.Cleanup(app.Close)
	res := resources(t, tpl, endpoint)
	at := time.Now().UTC().Truncate(time.Second)

	// The in-process handlers are built first, one at a time, each from its own environment as
	// pkg/cloud reads it in Lambda; then both paths of every function run, a few functions at once.
	type inProcess struct {
		handler lambda.Handler
		close   func()
	}
	local := map[string]inProcess{}
	for _, f := range functions {
		env, err := f.environment(res, table("inproc", f.id), chrome, work)
		if err != nil {
			t.Fatal(err)
		}
		var s handler.Services
		var h any
		withEnv(env, func() {
			if s, err = cloud.Services(context.Background(), slog.New(slog.DiscardHandler)); err == nil {
				h, err = cloud.Handler(f.fn, s)
			}
		})
		if err != nil {
			t.Fatalf("%s in process: %v", f.id, err)
		}
		closer, _ := s.Runner.(io.Closer)
		local[f.id] = inProcess{handler: lambda.NewHandler(h), close: func() {
			if closer != nil {
				closer.Close()
			}
		}}
	}

	// At most three functions at once: each holds an emulator, its function and, for an image
	// function, a Chromium, besides the in-process one.
	sem := make(chan struct{}, 3)
	var wg sync.WaitGroup
	for _, f := range functions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			defer local[f.id].close()
			t.Run(f.id, func(t *testing.T) {
				t0 := time.Now()
				f.run(t, res, at, app.URL, chrome, chromeErr, local[f.id].handler, work)
				t.Logf("%s (load %s)", time.Since(t0).Round(time.Millisecond), loadavg())
			})
		}()
	}
	wg.Wait()
	t.Logf("%d functions under the emulator in %s (load %s)", len(functions), time.Since(started).Round(time.Millisecond), loadavg())
}

// plan lists the functions of the template at path with the invocations each gets: its samples
// in eventsDir, the borrowed ones, and the payload that is not an event. Every
// AWS::Serverless::Function of the template is listed or named in problems: a function with no
// sample, one with no binary, a sample for no function of the template.
func plan(path, eventsDir string) (functions []*function, problems []string, err error) {
	tpl, err := template.Load(path, nil)
	if err != nil {
		return nil, nil, err
	}
	raw, err := serverlessFunctions(path)
	if err != nil {
		return nil, nil, err
	}
	table := map[string]handler.Function{}
	for _, f := range handler.Functions {
		table[f.ID] = f
	}
	files, err := filepath.Glob(filepath.Join(eventsDir, "*.json"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no samples in %s", eventsDir)
	}
	if err != nil {
		return nil, nil, err
	}
	byFunction := map[string][]string{}
	for _, file := range files {
		name := filepath.Base(file)
		id, known := samples[name]
		if strings.HasPrefix(name, "api-") || strings.HasPrefix(name, "console-") {
			id, known = handler.ApiFunction.ID, true
		}
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("events/%s is for no function this test knows: add it to samples", name))
		case id == "":
		case !inTemplate(raw, id):
			problems = append(problems, fmt.Sprintf("events/%s is for %s, which is not a function of the template", name, id))
		default:
			byFunction[id] = append(byFunction[id], name)
		}
	}
	for id, names := range borrowed {
		byFunction[id] = append(byFunction[id], names...)
	}
	if got, want := slices.Sorted(maps.Keys(tpl.Functions)), slices.Sorted(maps.Keys(raw)); !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("the template's AWS::Serverless::Function resources are %v; the local stack's template reader gives %v", want, got))
	}
	for _, id := range slices.Sorted(maps.Keys(raw)) {
		tf := tpl.Functions[id]
		fn, ok := table[id]
		names := byFunction[id]
		switch {
		case tf == nil:
			continue
		case !ok:
			problems = append(problems, fmt.Sprintf("template function %s has no entry in handler.Functions, so no binary to run under the emulator", id))
			continue
		case len(names) == 0:
			problems = append(problems, fmt.Sprintf("template function %s has no sample in events/ and borrows none, so it is not invoked under the emulator", id))
			continue
		}
		f := &function{id: id, fn: fn, tpl: tf, browser: fn.Image, settings: raw[id]}
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			payload, err := os.ReadFile(filepath.Join(eventsDir, name))
			if err != nil {
				return nil, nil, err
			}
			f.calls = append(f.calls, call{name: strings.TrimSuffix(name, ".json"), payload: payload})
		}
		f.calls = append(f.calls, call{name: "not-an-event", payload: []byte(notAnEvent)})
		functions = append(functions, f)
	}
	return functions, problems, nil
}

func inTemplate(raw map[string]settings, id string) bool {
	_, ok := raw[id]
	return ok
}

// TestPlanNamesEveryFunctionItCannotRun: a function the template gains without a binary, and
// one whose only sample goes, are named, so the emulator test fails rather than leave them out.
func TestPlanNamesEveryFunctionItCannotRun(t *testing.T) {
	functions, problems, err := plan("../../template.yaml", "../../events")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("template.yaml as it is: %v", problems)
	}
	tpl, err := template.Load("../../template.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(functions) != len(tpl.Functions) {
		t.Fatalf("%d functions planned, the template has %d", len(functions), len(tpl.Functions))
	}

	b, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	extra := "Resources:\n  ExtraFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n      CodeUri: functions/extra/\n      Handler: bootstrap\n      Runtime: provided.al2023\n    Metadata: {BuildMethod: go1.x}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(strings.Replace(string(b), "Resources:\n", extra, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events")
	if err := os.Mkdir(events, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../events/*.json")
	for _, f := range files {
		if filepath.Base(f) == "run-failed.json" {
			continue // the EligibilityFunction's only sample
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(events, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	functions, problems, err = plan(filepath.Join(dir, "template.yaml"), events)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{"template function ExtraFunction has no entry in handler.Functions", "template function EligibilityFunction has no sample"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
	if len(functions) != len(tpl.Functions)-1 {
		t.Errorf("%d functions planned; want all of template.yaml's but the EligibilityFunction", len(functions))
	}
}

// serverlessFunctions reads every AWS::Serverless::Function of the template straight from its
// YAML, with the settings the emulator is given (Globals merged in; Lambda's defaults of 128 MB
// and 3 s where neither says).
func serverlessFunctions(path string) (map[string]settings, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("%s: not one YAML document", path)
	}
	top := doc.Content[0]
	global := settings{MemorySize: 128, Timeout: 3, Architectures: []string{"x86_64"}}
	if err := global.read(key(key(top, "Globals"), "Function")); err != nil {
		return nil, fmt.Errorf("%s: Globals: %w", path, err)
	}
	out := map[string]settings{}
	resources := key(top, "Resources")
	if resources == nil {
		return nil, fmt.Errorf("%s: no Resources", path)
	}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		id, r := resources.Content[i].Value, resources.Content[i+1]
		if typ := key(r, "Type"); typ == nil || typ.Value != "AWS::Serverless::Function" {
			continue
		}
		s := global
		if err := s.read(key(r, "Properties")); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, id, err)
		}
		out[id] = s
	}
	return out, nil
}

// read overrides the settings with those a Globals.Function or Properties mapping gives.
func (s *settings) read(m *yaml.Node) error {
	for name, to := range map[string]*int{"MemorySize": &s.MemorySize, "Timeout": &s.Timeout} {
		if v := key(m, name); v != nil {
			n, err := strconv.Atoi(v.Value)
			if err != nil {
				return fmt.Errorf("%s %q is not a number", name, v.Value)
			}
			*to = n
		}
	}
	if v := key(m, "Architectures"); v != nil {
		s.Architectures = nil
		for _, a := range v.Content {
			s.Architectures = append(s.Architectures, a.Value)
		}
	}
	return nil
}

// key is the value of k in a YAML mapping, or nil.
func key(m *yaml.Node, k string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

// emulatorBuildError is an emulator that could not be built here because its module could not
// be fetched (no network to the module proxy, GOPROXY=off); the test skips with it. Any other
// build failure (a toolchain mismatch, a broken rie/go.mod) fails the test.
type emulatorBuildError struct{ err error }

// unfetchable is what go build says when a module it needs cannot be downloaded.
var unfetchable = regexp.MustCompile(`(?i)dial tcp|no such host|i/o timeout|connection refused|network is unreachable|tls handshake|GOPROXY=off|module lookup disabled|reading https?://\S+: [45][0-9][0-9]`)

func (e *emulatorBuildError) Error() string { return e.err.Error() }

// build builds the emulator from rie/go.mod, and every function as its deployment does, for
// Linux on this machine's architecture (template.yaml targets arm64; the emulator runs the
// binaries here, so they are built for the host):
//   - a zip function as `sam build` builds BuildMethod go1.x for provided.al2023: `go build -o
//     bootstrap ./functions/<dir>` with GOOS=linux and GOARCH set, and cgo off as in its cross
//     build from another architecture (no -tags lambda.norpc, no -trimpath: sam adds neither);
//   - an image function as infra/chromium/Dockerfile's loop builds it: CGO_ENABLED=0 GOOS=linux
//     go build -trimpath -ldflags="-s -w" -o /opt/gardener/<dir>.
//
// Each kind is one `go build` of all its packages. The binaries are linked into a directory kept
// between runs (see keptBuilds) and the test runs copies of them: go build leaves a target alone
// when its build ID already names the link that would make it (the sources, the flags, the
// toolchain), and Go's build cache keeps compiled packages but no linked binary, so without the
// kept directory every run linked all eighteen binaries again: about half of the test's CPU time
// when nothing else had to be compiled.
func build(ctx context.Context, gobin, work string, functions []*function) error {
	kept, unlock, err := keptBuilds()
	if err != nil {
		// No cache directory here: link in the work directory, as a first run does.
		kept, unlock = filepath.Join(work, "build"), func() {}
	}
	defer unlock()
	goEnv := func(extra ...string) []string {
		return append(os.Environ(), append([]string{"GOOS=linux", "GOARCH=" + runtime.GOARCH, "CGO_ENABLED=0"}, extra...)...)
	}
	rie := exec.CommandContext(ctx, gobin, "build", "-o", filepath.Join(kept, "aws-lambda-rie"), emulator)
	rie.Dir = "rie"
	rie.Env = goEnv()
	if out, err := rie.CombinedOutput(); err != nil {
		err = fmt.Errorf("go build %s: %v\n%s", emulator, err, out)
		if unfetchable.Match(out) {
			return &emulatorBuildError{err}
		}
		return err
	}
	if err := copyBinary(filepath.Join(kept, "aws-lambda-rie"), filepath.Join(work, "aws-lambda-rie")); err != nil {
		return err
	}
	flags, err := dockerfileBuildFlags()
	if err != nil {
		return err
	}
	var zips, images []string
	for _, f := range functions {
		if f.fn.Image {
			images = append(images, "./functions/"+f.fn.Dir)
			f.dir = filepath.Join(work, "image", "opt", "gardener")
			f.bin = filepath.Join(f.dir, f.fn.Dir)
		} else {
			zips = append(zips, "./functions/"+f.fn.Dir)
			f.dir = filepath.Join(work, "zip", f.id)
			f.bin = filepath.Join(f.dir, "bootstrap")
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Dir, cmd.Env = root, goEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if len(images) > 0 {
		if err := run(append(append([]string{"build"}, flags...), append([]string{"-o", filepath.Join(kept, "image") + "/"}, images...)...)...); err != nil {
			return err
		}
	}
	if len(zips) > 0 {
		if err := run(append([]string{"build", "-o", filepath.Join(kept, "zip") + "/"}, zips...)...); err != nil {
			return err
		}
	}
	for _, f := range functions {
		from := filepath.Join(kept, "zip", f.fn.Dir)
		if f.fn.Image {
			from = filepath.Join(kept, "image", f.fn.Dir)
		}
		if err := copyBinary(from, f.bin); err != nil {
			return err
		}
	}
	return nil
}

// keptBuilds is the directory the binaries are linked into, kept between runs in the user's cache
// directory, and holds its lock until unlock: one directory for every checkout of the repository,
// whose binaries go build replaces when they are not what this tree builds, so two test runs
// at once take turns rather than replace a binary the other is copying.
func keptBuilds() (dir string, unlock func(), err error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Join(base, "driftgardener", "lambdarie-"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, err
	}
	return dir, func() { lock.Close() }, nil
}

// copyBinary copies the executable from to to, making to's directory.
func copyBinary(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// dockerfileBuildFlags are the go build flags of the Dockerfile's loop, read from it so the two
// cannot drift: the words between `go build` and `-o`.
func dockerfileBuildFlags() ([]string, error) {
	b, err := os.ReadFile("../../infra/chromium/Dockerfile")
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`CGO_ENABLED=0 GOOS=linux GOARCH=\$TARGETARCH go build (.*?) -o /out/\$fn \./functions/\$fn`).FindSubmatch(b)
	if m == nil {
		return nil, errors.New("infra/chromium/Dockerfile: no `CGO_ENABLED=0 GOOS=linux GOARCH=$TARGETARCH go build … -o /out/$fn ./functions/$fn` line; this test builds the image functions as that line does")
	}
	return shellWords(string(m[1]))
}

// shellWords splits a line as the shell does words with double quotes in them, and refuses
// what else a shell would read differently: single quotes, escapes, variables.
func shellWords(line string) ([]string, error) {
	if strings.ContainsAny(line, `'\$`+"`") {
		return nil, fmt.Errorf("the build flags %q quote or expand more than this test reads", line)
	}
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, word.String())
				word.Reset()
			}
			inWord = false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("the build flags %q have an unclosed quote", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// stack are the template's resources as this test creates them on moto_server.
type stack struct {
	endpoint string
	cfg      aws.Config
	refs     map[string]string // logical id or parameter → what Ref gives
}

// resources creates the topic, the bus and the repair state machine the functions' environment
// names, and gives the parameters values: a console served at a loopback address, with an
// identity provider at a closed loopback port (nothing here signs in).
func resources(t *testing.T, tpl *template.Template, endpoint string) *stack {
	t.Helper()
	cfg := mototest.Config(t)
	ctx := context.Background()
	topic, err := awssns.NewFromConfig(cfg).CreateTopic(ctx, &awssns.CreateTopicInput{Name: aws.String(mototest.Name("auto-repair"))})
	if err != nil {
		t.Fatal(err)
	}
	bus := mototest.Name("bus")
	if _, err := eventbridge.NewFromConfig(cfg).CreateEventBus(ctx, &eventbridge.CreateEventBusInput{Name: aws.String(bus)}); err != nil {
		t.Fatal(err)
	}
	def, err := tpl.Definition("RepairStateMachine")
	if err != nil {
		t.Fatal(err)
	}
	sm, err := awssfn.NewFromConfig(cfg).CreateStateMachine(ctx, &awssfn.CreateStateMachineInput{
		Name: aws.String(mototest.Name("repair")), Definition: aws.String(string(def)),
		RoleArn: aws.String("arn:aws:iam::123456789012:role/repair-machine"),
	})
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{
		"AWS::Region":        mototest.Region,
		"AutoRepairTopic":    aws.ToString(topic.TopicArn),
		"Bus":                bus,
		"RepairStateMachine": aws.ToString(sm.StateMachineArn),
		"JwtIssuer":          "http://127.0.0.1:1/issuer",
		"JwtAudience":        "gardener-console",
		"ConsoleUrl":         "http://127.0.0.1:1",
		"ConsoleSessionKey":  strings.Repeat("k", 32),
	}
	// A parameter a deploy may leave to its default (the plan, the model) takes it here too,
	// as CloudFormation gives it.
	for name, p := range tpl.Parameters {
		if _, set := refs[name]; !set && p.HasDefault {
			refs[name] = p.Default
		}
	}
	return &stack{endpoint: endpoint, cfg: cfg, refs: refs}
}

// table is the name of a function's table on one path.
func table(path, id string) string { return path + "-" + id }

// environment is the function's environment in Lambda, with the template's references made to
// the resources on moto_server: the template's variables, what Lambda sets, the image's ENV for
// an image function (its HOME and caches in a directory of its own, as a container's /tmp is,
// and this machine's Chromium), and the endpoint and fake credentials of moto_server.
//
// One line of the image's ENV is left out: CHROME_SINGLE_PROCESS=1. A single-process Chromium
// on this loaded 2-core host once exited in the middle of a replay under the emulator (1 run
// in 6, at load 15), which says nothing about the runtime API this test is about; both paths
// run Chromium as every other browser test does, and pkg/browser's tests cover single-process.
func (f *function) environment(res *stack, tableName, chrome, work string) (map[string]string, error) {
	env := map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"AWS_REGION":                      mototest.Region,
		"AWS_DEFAULT_REGION":              mototest.Region,
		"AWS_ACCESS_KEY_ID":               "test",
		"AWS_SECRET_ACCESS_KEY":           "test",
		"AWS_ENDPOINT_URL":                res.endpoint,
		"AWS_LAMBDA_FUNCTION_NAME":        f.id,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(f.settings.MemorySize),
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(f.settings.Timeout),
		"HOME":                            filepath.Join(work, "home", f.id),
	}
	if f.fn.Image {
		tmp := filepath.Join(work, "t", tableName)
		env["HOME"], env["XDG_CONFIG_HOME"], env["XDG_CACHE_HOME"] = tmp, tmp+"/.config", tmp+"/.cache"
		env["TMPDIR"] = tmp
		env["CHROME_PATH"] = chrome
	}
	for k, v := range f.tpl.Environment {
		r, err := res.resolve(v, tableName)
		if err != nil {
			return nil, fmt.Errorf("%s: environment variable %s: %w", f.id, k, err)
		}
		env[k] = r
	}
	return env, os.MkdirAll(env["HOME"], 0o755)
}

// resolve gives a template value its value here: a literal, or a Ref to the table, a resource
// made on moto_server or a parameter. Any other form is an error, so a template that starts to
// use one fails here until this test learns it.
func (s *stack) resolve(v any, tableName string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case map[string]any:
		if ref, ok := x["Ref"].(string); ok && len(x) == 1 {
			if ref == "Table" {
				return tableName, nil
			}
			if r, ok := s.refs[ref]; ok {
				return r, nil
			}
		}
	}
	b, _ := json.Marshal(v)
	return "", fmt.Errorf("%s has no value in this test", b)
}

// proposing are the functions of the staging machine, which a radar sweep starts for a project
// that proposes its repairs; the others run for a project that repairs itself.
var proposing = map[string]bool{
	"StagingSelectFunction": true, "DryRunFunction": true, "ProposeFunction": true, "StagingSummaryFunction": true,
}

// seed creates a table and stores what the samples name: the demo project (auto-repair on, or
// proposing), its tests served at appURL, and the scheduled run of the login test.
func (s *stack) seed(tableName, appURL string, at time.Time, propose bool) error {
	ctx := context.Background()
	store := dynamo.New(dynamodb.NewFromConfig(s.cfg), tableName)
	if err := store.CreateTable(ctx); err != nil {
		return err
	}
	p := demoapp.Project(appURL)
	p.Plan, p.AutoRepair, p.Model = gardener.PlanPro, !propose, "builtin"
	if err := store.PutProject(ctx, p); err != nil {
		return err
	}
	tests, err := demoapp.Tests()
	if err != nil {
		return err
	}
	for _, tt := range tests {
		if err := store.CreateTest(ctx, tt); err != nil {
			return err
		}
	}
	return store.PutRun(ctx, gardener.Run{ID: "run-login-0300", ProjectID: "demo", TestID: "login", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: at})
}

// run invokes the function with each of its calls in process and then under the emulator, each
// path over its own fresh table, and compares the answers. It returns a line for the log.
func (f *function) run(t *testing.T, res *stack, at time.Time, appURL, chrome string, chromeErr error, h lambda.Handler, work string) {
	if f.browser && chromeErr != nil {
		t.Skipf("SKIP: %s replays tests in Chromium and there is none (%v); install it with: apt-get install -y chromium", f.id, chromeErr)
	}
	calls := f.calls
	for _, path := range []string{"inproc", "rie"} {
		if err := res.seed(table(path, f.id), appURL, at, proposing[f.id]); err != nil {
			t.Fatalf("seed the %s table: %v", path, err)
		}
	}
	ctx := context.Background()
	clk := clock{from: time.Now()}
	want := make([]answer, len(calls))
	for i, c := range calls {
		out, err := h.Invoke(ctx, c.payload)
		if err != nil {
			want[i] = answer{ErrorType: errorType(err), ErrorMessage: err.Error()}
		} else {
			want[i] = answer{Payload: out}
		}
	}
	env, err := f.environment(res, table("rie", f.id), chrome, work)
	if err != nil {
		t.Fatal(err)
	}
	em, err := startEmulator(filepath.Join(work, "aws-lambda-rie"), f, env)
	if err != nil {
		t.Fatal(err)
	}
	defer em.stop()
	invoke := em.invoke(time.Duration(f.settings.Timeout+30) * time.Second)
	var first time.Duration
	for i, c := range calls {
		t0 := time.Now()
		got, err := invoke(c.payload)
		if i == 0 {
			first = time.Since(t0)
		}
		if err != nil {
			t.Errorf("%s under the emulator: %v\nits output:\n%s", c.name, err, em.log)
			continue
		}
		w, g := clk.mask(want[i]), clk.mask(got)
		if d := differ(w, g); d != "" {
			t.Errorf("%s: the emulator's answer differs from the in-process one: %s\nin process: %s\nemulator:   %s", c.name, d, show(w), show(g))
			continue
		}
		t.Logf("%s: alike, %s", c.name, brief(g))
	}
	t.Logf("%d invocations; the first under the emulator, its cold start included, took %s", len(calls), first.Round(time.Millisecond))
}

// brief is an answer in a few words for the log.
func brief(a answer) string {
	if a.Payload == nil {
		return "error " + a.ErrorType
	}
	var api struct {
		StatusCode *int `json:"statusCode"`
	}
	if json.Unmarshal(a.Payload, &api) == nil && api.StatusCode != nil {
		return fmt.Sprintf("HTTP %d, %d bytes", *api.StatusCode, len(a.Payload))
	}
	s := string(a.Payload)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// errorType is the error's name as aws-lambda-go reports a handler's error to the runtime API:
// the name of its type, without the pointer.
func errorType(err error) string {
	if ive, ok := err.(messages.InvokeResponse_Error); ok {
		return ive.Type
	}
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// clock masks what differs between two runs of one function by when they ran: a time read
// from the clock since from (an RFC 3339 time, or one in base 36 milliseconds or nanoseconds,
// as ids carry it), the random part of an id and a handoff's id (the digest of a body that
// holds such times). Times written before (the seeded run's) and
// everything else stay as they are.
type clock struct{ from time.Time }

var (
	timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)
	base36RE    = regexp.MustCompile(`\b[0-9a-z]{8,13}\b`)
	randomRE    = regexp.MustCompile(`<now>-[0-9a-f]{8}\b|\b(?:manual|chat|handoff)-[0-9a-f]{24,32}`)
)

func (c clock) mask(a answer) answer {
	to := time.Now().Add(time.Second)
	from := c.from.Add(-time.Second)
	during := func(t time.Time) bool { return !t.Before(from) && !t.After(to) }
	text := func(s string) string {
		s = timestampRE.ReplaceAllStringFunc(s, func(m string) string {
			if t, err := time.Parse(time.RFC3339Nano, m); err == nil && during(t) {
				return "<now>"
			}
			return m
		})
		s = base36RE.ReplaceAllStringFunc(s, func(m string) string {
			if n, err := strconv.ParseInt(m, 36, 64); err == nil && (during(time.UnixMilli(n)) || during(time.Unix(0, n))) {
				return "<now>"
			}
			return m
		})
		return randomRE.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "<now>-") {
				return "<now>-<random>"
			}
			prefix, _, _ := strings.Cut(m, "-")
			return prefix + "-<random>"
		})
	}
	a.ErrorMessage = text(a.ErrorMessage)
	if a.Payload != nil {
		a.Payload = json.RawMessage(text(string(a.Payload)))
	}
	return a
}

// differ says how two answers differ after volatile values (times, generated ids, durations)
// are masked the same way on both, or "".
func differ(want, got answer) string {
	if want.ErrorType != got.ErrorType {
		return fmt.Sprintf("error type %q, in process %q", got.ErrorType, want.ErrorType)
	}
	if want.ErrorMessage != got.ErrorMessage {
		return "error message"
	}
	if (want.Payload == nil) != (got.Payload == nil) {
		return "one answered a payload, the other an error"
	}
	if want.Payload == nil {
		return ""
	}
	if canonical(want.Payload) != canonical(got.Payload) {
		return "payload"
	}
	return ""
}

func canonical(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "not JSON: " + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func show(a answer) string {
	b, _ := json.Marshal(a)
	if len(b) > 2000 {
		b = append(b[:2000], "…"...)
	}
	return string(b)
}
