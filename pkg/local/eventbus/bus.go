// Package eventbus is EventBridge on one machine, as far as our template uses it: event
// patterns of exact values and exists filters matched as EventBridge documents them, a bus
// that delivers each put event to every rule whose pattern matches, and a scheduler that fires
// rate() expressions from an injected clock. Anything else a rule or schedule could say is
// refused when it is added, naming what is not supported.
package eventbus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Event is the EventBridge envelope a rule's target receives.
type Event struct {
	Version    string          `json:"version"`
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Account    string          `json:"account"`
	Time       time.Time       `json:"time"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

// Entry is what a producer puts, as in PutEvents: Detail must be a JSON object.
type Entry struct {
	Source     string
	DetailType string
	Detail     json.RawMessage
	Resources  []string
	Time       time.Time // zero: now
}

// Target receives a matched event as JSON, the way a Step Functions or Lambda target does.
type Target func(ctx context.Context, event json.RawMessage) error

// Bus is an in-process event bus. The zero value is not usable; build one with New.
type Bus struct {
	// Account and Region fill the envelope.
	Account, Region string
	now             func() time.Time

	mu    sync.RWMutex
	rules map[string]*rule
}

type rule struct {
	name    string
	pattern *Pattern
	targets []Target
}

// New returns a bus whose envelopes take their time from now (time.Now if nil).
func New(now func() time.Time) *Bus {
	if now == nil {
		now = time.Now
	}
	return &Bus{Account: "000000000000", Region: "local", now: now, rules: map[string]*rule{}}
}

// AddRule routes events matching pattern to the targets. A rule name is unique on a bus.
func (b *Bus) AddRule(name string, pattern []byte, targets ...Target) error {
	p, err := CompilePattern(pattern)
	if err != nil {
		return fmt.Errorf("rule %s: %w", name, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.rules[name]; dup {
		return fmt.Errorf("rule %s already exists", name)
	}
	b.rules[name] = &rule{name: name, pattern: p, targets: targets}
	return nil
}

// Delivery reports what a put did: the event as delivered and the rules it matched.
type Delivery struct {
	Event   Event
	Matched []string
}

// Put wraps the entry in an envelope and delivers it, synchronously and in rule-name order, to
// every target of every matching rule. Target errors are joined, each naming its rule; every
// target is still called.
func (b *Bus) Put(ctx context.Context, e Entry) (Delivery, error) {
	if e.Source == "" || e.DetailType == "" {
		return Delivery{}, fmt.Errorf("put event: Source and DetailType are required (got %q, %q)", e.Source, e.DetailType)
	}
	if len(e.Detail) == 0 {
		e.Detail = json.RawMessage("{}")
	}
	var detail any
	if err := json.Unmarshal(e.Detail, &detail); err != nil {
		return Delivery{}, fmt.Errorf("put event %s/%s: detail is not JSON: %w", e.Source, e.DetailType, err)
	}
	if _, ok := detail.(map[string]any); !ok {
		return Delivery{}, fmt.Errorf("put event %s/%s: detail must be a JSON object, got %s", e.Source, e.DetailType, e.Detail)
	}
	ev := Event{
		Version: "0", ID: newID(), DetailType: e.DetailType, Source: e.Source,
		Account: b.Account, Time: e.Time, Region: b.Region, Resources: e.Resources, Detail: e.Detail,
	}
	if ev.Time.IsZero() {
		ev.Time = b.now()
	}
	ev.Time = ev.Time.UTC().Truncate(time.Second)
	if ev.Resources == nil {
		ev.Resources = []string{}
	}
	return b.deliver(ctx, ev)
}

// deliver matches an envelope against every rule and calls the matching rules' targets.
func (b *Bus) deliver(ctx context.Context, ev Event) (Delivery, error) {
	raw, err := json.Marshal(ev)
	if err != nil {
		return Delivery{}, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	decoded, err := decode(raw)
	if err != nil {
		return Delivery{}, fmt.Errorf("decode event %s: %w", ev.ID, err)
	}
	b.mu.RLock()
	var matched []*rule
	for _, r := range b.rules {
		if r.pattern.root.match(decoded) {
			matched = append(matched, r)
		}
	}
	b.mu.RUnlock()
	sort.Slice(matched, func(i, j int) bool { return matched[i].name < matched[j].name })
	d := Delivery{Event: ev}
	var errs []error
	for _, r := range matched {
		d.Matched = append(d.Matched, r.name)
		for i, t := range r.targets {
			if err := t(ctx, raw); err != nil {
				errs = append(errs, fmt.Errorf("rule %s target %d: %w", r.name, i, err))
			}
		}
	}
	return d, errors.Join(errs...)
}

func newID() string {
	var b [16]byte
	rand.Read(b[:]) // documented never to fail
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
