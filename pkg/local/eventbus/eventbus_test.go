package eventbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/local/eventbus"
)

// runFailed is the shape of the platform's "Run Failed" event.
const runFailed = `{
  "version": "0", "id": "e1", "detail-type": "Run Failed", "source": "driftgardener.platform",
  "account": "000000000000", "time": "2026-11-29T10:00:00Z", "region": "local", "resources": [],
  "detail": {
    "runId": "r1", "projectId": "p1", "trigger": "scheduled-suite", "control": false,
    "durationMs": 1234, "browser": "Chromium", "note": null, "ip": "10.0.3.7",
    "tags": ["smoke", "checkout"], "steps": [{"kind": "click", "ok": true}, {"kind": "assert", "ok": false}],
    "test": {"id": "t1", "status": "active"}
  }
}`

func TestPatterns(t *testing.T) {
	cases := []struct {
		name    string
		pattern string
		want    bool
	}{
		{"exact string", `{"source":["driftgardener.platform"]}`, true},
		{"one of several values", `{"detail-type":["Run Passed","Run Failed"]}`, true},
		{"no value matches", `{"detail-type":["Run Passed"]}`, false},
		{"nested object", `{"detail":{"test":{"status":["active"]}}}`, true},
		{"all fields must match", `{"source":["driftgardener.platform"],"detail":{"trigger":["worker"]}}`, false},
		{"exact number", `{"detail":{"durationMs":[1234]}}`, true},
		{"numbers compare by value", `{"detail":{"durationMs":[1234.0]}}`, true},
		{"a number does not match its string", `{"detail":{"durationMs":["1234"]}}`, false},
		{"boolean", `{"detail":{"control":[false]}}`, true},
		{"null matches null", `{"detail":{"note":[null]}}`, true},
		{"null does not match a missing field", `{"detail":{"missing":[null]}}`, false},
		{"empty string does not match null", `{"detail":{"note":[""]}}`, false},
		{"array value: any element", `{"detail":{"tags":["checkout"]}}`, true},
		{"array of objects: any element", `{"detail":{"steps":{"kind":["assert"],"ok":[false]}}}`, true},
		{"exists true", `{"detail":{"runId":[{"exists":true}]}}`, true},
		{"exists true on a missing field", `{"detail":{"missing":[{"exists":true}]}}`, false},
		{"exists false", `{"detail":{"missing":[{"exists":false}]}}`, true},
		{"exists false on a present field", `{"detail":{"runId":[{"exists":false}]}}`, false},
		{"exists false under a missing object", `{"detail":{"absent":{"x":[{"exists":false}]}}}`, true},
		{"a value under a missing object", `{"detail":{"absent":{"x":["y"]}}}`, false},
		{"a value or absent", `{"detail":{"control":[false,{"exists":false}],"probe":[false,{"exists":false}]}}`, true},
		{"neither the value nor absent", `{"detail":{"control":[true,{"exists":false}]}}`, false},
		{"unattended failures but not controls or probes", `{
			"source":["driftgardener.platform"], "detail-type":["Run Failed"],
			"detail":{"trigger":["scheduled-suite","worker"],"control":[false,{"exists":false}],"probe":[false,{"exists":false}]}}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := eventbus.CompilePattern([]byte(tc.pattern))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Matches([]byte(runFailed)); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPatternErrors(t *testing.T) {
	cases := []struct{ pattern, want string }{
		{`[]`, "must be an object"},
		{`{"source":"x"}`, "source: a pattern value must be an array"},
		{`{"source":[]}`, "empty array"},
		{`{"a":[{"exists":"yes"}]}`, "exists takes true or false"},
		{`{"a":[{"exists":true,"prefix":"y"}]}`, "exactly one operator"},
		{`{"a":[["x"]]}`, "arrays inside an array of values are not allowed"},
		{`not json`, "not JSON"},
	}
	for _, tc := range cases {
		_, err := eventbus.CompilePattern([]byte(tc.pattern))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompilePattern(%s) = %v, want an error containing %q", tc.pattern, err, tc.want)
		}
	}
}

// TestPatternRefusesUnsupported proves each EventBridge pattern operator our rules do not use
// is refused when a rule is added, with an error naming the operator and the field, so a rule
// that starts to use one fails loudly on the local bus instead of matching differently there.
func TestPatternRefusesUnsupported(t *testing.T) {
	cases := []struct{ operator, pattern, want string }{
		{"prefix", `{"source":[{"prefix":"drift"}]}`, `source: content filter "prefix" is not supported by the local event bus (it matches exact values and exists)`},
		{"suffix", `{"detail":{"trigger":[{"suffix":"-suite"}]}}`, `detail.trigger: content filter "suffix" is not supported`},
		{"equals-ignore-case", `{"detail":{"b":[{"equals-ignore-case":"x"}]}}`, `detail.b: content filter "equals-ignore-case" is not supported`},
		{"wildcard", `{"detail":{"trigger":[{"wildcard":"s*"}]}}`, `detail.trigger: content filter "wildcard" is not supported`},
		{"anything-but", `{"detail":{"trigger":["worker",{"anything-but":"probe"}]}}`, `detail.trigger: content filter "anything-but" is not supported`},
		{"numeric", `{"detail":{"atRisk":[{"numeric":[">",0]}]}}`, `detail.atRisk: content filter "numeric" is not supported`},
		{"cidr", `{"detail":{"ip":[{"cidr":"10.0.0.0/8"}]}}`, `detail.ip: content filter "cidr" is not supported`},
		{"an unknown filter", `{"a":[{"regex":"x"}]}`, `a: content filter "regex" is not supported`},
		{"$or", `{"detail":{"$or":[{"a":["x"]},{"b":["y"]}]}}`, `detail.$or: $or is not supported by the local event bus`},
		{"$or at the top", `{"$or":[{"a":["x"]},{"b":["y"]}]}`, `$or: $or is not supported`},
	}
	for _, tc := range cases {
		t.Run(tc.operator, func(t *testing.T) {
			err := eventbus.New(nil).AddRule("RunFailed", []byte(tc.pattern))
			if err == nil || !strings.Contains(err.Error(), "rule RunFailed: event pattern: "+tc.want) {
				t.Errorf("AddRule(%s) = %v, want an error containing %q", tc.pattern, err, tc.want)
			}
		})
	}
}

func TestBusDelivers(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 500, time.UTC)
	bus := eventbus.New(func() time.Time { return now })
	var mu sync.Mutex
	got := map[string][]json.RawMessage{}
	target := func(name string) eventbus.Target {
		return func(_ context.Context, ev json.RawMessage) error {
			mu.Lock()
			defer mu.Unlock()
			got[name] = append(got[name], ev)
			return nil
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(bus.AddRule("RunFailed", []byte(`{"detail-type":["Run Failed"],"detail":{"control":[false]}}`), target("repair")))
	must(bus.AddRule("Everything", []byte(`{"source":["driftgardener.platform","driftgardener.radar"]}`), target("log"), target("log2")))
	must(bus.AddRule("Broken", []byte(`{"detail-type":["Radar Sweep Completed"]}`), func(context.Context, json.RawMessage) error {
		return errors.New("staging is down")
	}))
	if err := bus.AddRule("RunFailed", []byte(`{"source":["x"]}`)); err == nil {
		t.Error("a duplicate rule name was accepted")
	}

	d, err := bus.Put(context.Background(), eventbus.Entry{Source: "driftgardener.platform", DetailType: "Run Failed", Detail: json.RawMessage(`{"runId":"r1","control":false}`)})
	must(err)
	if strings.Join(d.Matched, ",") != "Everything,RunFailed" {
		t.Errorf("matched %v", d.Matched)
	}
	var env map[string]any
	must(json.Unmarshal(got["repair"][0], &env))
	for k, want := range map[string]any{"version": "0", "detail-type": "Run Failed", "source": "driftgardener.platform", "account": "000000000000", "region": "local", "time": "2026-11-29T10:00:00Z"} {
		if env[k] != want {
			t.Errorf("envelope %s = %v, want %v", k, env[k], want)
		}
	}
	if id, _ := env["id"].(string); len(id) != 36 {
		t.Errorf("envelope id %v", env["id"])
	}
	if res, ok := env["resources"].([]any); !ok || len(res) != 0 {
		t.Errorf("resources %v, want []", env["resources"])
	}
	if len(got["log"]) != 1 || len(got["log2"]) != 1 {
		t.Errorf("every target of a matching rule is called: %d, %d", len(got["log"]), len(got["log2"]))
	}

	d, err = bus.Put(context.Background(), eventbus.Entry{Source: "driftgardener.platform", DetailType: "Run Failed", Detail: json.RawMessage(`{"control":true}`)})
	must(err)
	if strings.Join(d.Matched, ",") != "Everything" {
		t.Errorf("a control run matched %v", d.Matched)
	}

	_, err = bus.Put(context.Background(), eventbus.Entry{Source: "driftgardener.radar", DetailType: "Radar Sweep Completed"})
	if err == nil || !strings.Contains(err.Error(), "rule Broken target 0: staging is down") {
		t.Errorf("target error %v", err)
	}
	if len(got["log"]) != 3 {
		t.Errorf("a failing rule stopped the others: log got %d events", len(got["log"]))
	}

	for _, bad := range []eventbus.Entry{
		{DetailType: "x"},
		{Source: "s", DetailType: "x", Detail: json.RawMessage(`[1]`)},
		{Source: "s", DetailType: "x", Detail: json.RawMessage(`{`)},
	} {
		if _, err := bus.Put(context.Background(), bad); err == nil {
			t.Errorf("Put(%+v) accepted", bad)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	cases := []struct {
		expr string
		want time.Duration
	}{
		{"rate(5 minutes)", 5 * time.Minute},
		{"rate(1 minute)", time.Minute},
		{"rate(1 hour)", time.Hour},
		{"rate(2 days)", 48 * time.Hour},
	}
	for _, tc := range cases {
		got, err := eventbus.ParseSchedule(tc.expr)
		if err != nil || got != tc.want {
			t.Errorf("ParseSchedule(%q) = %s, %v; want %s", tc.expr, got, err, tc.want)
		}
	}
	for _, bad := range []string{"rate(5 minute)", "rate(1 minutes)", "rate(0 minutes)", "rate(5 weeks)", "rate(5)", "rate(5 minutes", "every 5 minutes"} {
		if _, err := eventbus.ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", bad)
		}
	}
	for _, cron := range []string{"cron(0 6 * * ? *)", "cron(0/15 * * * ? *)"} {
		_, err := eventbus.ParseSchedule(cron)
		if want := "cron expressions are not supported by the local scheduler"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), cron) {
			t.Errorf("ParseSchedule(%q) = %v, want an error naming it and containing %q", cron, err, want)
		}
	}
}

func TestScheduler(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s := eventbus.NewScheduler(func() time.Time { return now })
	var fired []string
	var last map[string]any
	if err := s.Add("RadarSchedule", "rate(10 minutes)", func(_ context.Context, ev json.RawMessage) error {
		fired = append(fired, now.Format("15:04"))
		return json.Unmarshal(ev, &last)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("Nightly", "rate(12 hours)", func(context.Context, json.RawMessage) error { return errors.New("nightly broke") }); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		advance time.Duration
		want    string
	}{
		{5 * time.Minute, ""},
		{5 * time.Minute, "RadarSchedule"},
		{time.Minute, ""},
		{35 * time.Minute, "RadarSchedule"}, // three periods passed: one firing, no backfill
		{4 * time.Minute, "RadarSchedule"},
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		names, err := s.Tick(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(names, ","); got != st.want {
			t.Errorf("tick %d at %s fired %q, want %q", i, now.Format("15:04"), got, st.want)
		}
	}
	if got := strings.Join(fired, ","); got != "10:10,10:46,10:50" {
		t.Errorf("fired at %s", got)
	}
	if last["detail-type"] != "Scheduled Event" || last["source"] != "aws.events" {
		t.Errorf("envelope %v", last)
	}
	if res, _ := last["resources"].([]any); len(res) != 1 || res[0] != "arn:aws:events:local:000000000000:rule/RadarSchedule" {
		t.Errorf("resources %v", last["resources"])
	}
	if next := s.Next("RadarSchedule"); !next.Equal(time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("next %s", next)
	}

	if err := s.FireNow(ctx, "RadarSchedule"); err != nil || len(fired) != 4 {
		t.Errorf("FireNow: %v, %d firings", err, len(fired))
	}
	if err := s.FireNow(ctx, "Nightly"); err == nil || !strings.Contains(err.Error(), "schedule Nightly (rate(12 hours)): nightly broke") {
		t.Errorf("FireNow error %v", err)
	}
	if err := s.FireNow(ctx, "Nope"); err == nil {
		t.Error("FireNow of an unknown schedule succeeded")
	}
	if err := s.Add("Bad", "rate(soon)", nil); err == nil {
		t.Error("a bad expression was accepted")
	}
	if err := s.Add("Cron", "cron(0 2 * * ? *)", nil); err == nil || !strings.Contains(err.Error(), "schedule Cron: schedule \"cron(0 2 * * ? *)\": cron expressions are not supported") {
		t.Errorf("Add of a cron schedule = %v, want it refused", err)
	}

	t.Run("Run ticks until cancelled", func(t *testing.T) {
		ticks := make(chan time.Time)
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		var errs []error
		go func() {
			s.Run(ctx, ticks, func(err error) { errs = append(errs, err) })
			close(done)
		}()
		now = now.Add(16 * time.Hour) // past the nightly 22:00 and many radar periods
		ticks <- now
		cancel()
		<-done
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "nightly broke") {
			t.Errorf("errors %v", errs)
		}
	})
}

// BenchmarkPut measures one put through a bus of ten rules (about the local stack's wiring),
// eight of which match.
func BenchmarkPut(b *testing.B) {
	bus := eventbus.New(nil)
	noop := func(context.Context, json.RawMessage) error { return nil }
	for i, p := range []string{
		`{"detail-type":["Run Failed"],"detail":{"trigger":["scheduled-suite","worker"],"control":[false,{"exists":false}],"probe":[false,{"exists":false}]}}`,
		`{"detail-type":["Radar Sweep Completed"]}`,
		`{"source":["driftgardener.platform"]}`,
		`{"detail":{"browser":["Chromium"]}}`,
		`{"detail":{"trigger":["scheduled-suite","worker"]}}`,
		`{"detail":{"control":[true]}}`,
		`{"detail":{"runId":[{"exists":true}]}}`,
		`{"detail":{"ip":["10.0.3.7"]}}`,
		`{"detail":{"test":{"status":["active"]}}}`,
		`{"detail":{"steps":{"kind":["assert"],"ok":[false]}}}`,
	} {
		if err := bus.AddRule(string(rune('a'+i)), []byte(p), noop); err != nil {
			b.Fatal(err)
		}
	}
	var ev struct {
		Detail json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal([]byte(runFailed), &ev); err != nil {
		b.Fatal(err)
	}
	entry := eventbus.Entry{Source: "driftgardener.platform", DetailType: "Run Failed", Detail: ev.Detail}
	b.ReportAllocs()
	for b.Loop() {
		d, err := bus.Put(context.Background(), entry)
		if err != nil || len(d.Matched) != 8 { // all but the radar rule and the control run
			b.Fatal(err, d.Matched)
		}
	}
}
