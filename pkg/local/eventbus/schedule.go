package eventbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseSchedule parses an EventBridge rate expression, rate(N unit), into its period. A cron
// expression, or anything else, is refused: our template's schedule is a rate.
func ParseSchedule(expr string) (time.Duration, error) {
	body, isRate := strings.CutPrefix(expr, "rate(")
	body, closed := strings.CutSuffix(body, ")")
	if !isRate || !closed {
		if strings.HasPrefix(expr, "cron(") {
			return 0, fmt.Errorf("schedule %q: cron expressions are not supported by the local scheduler (it runs rate(N minutes|hours|days))", expr)
		}
		return 0, fmt.Errorf("schedule %q: want rate(value unit)", expr)
	}
	f := strings.Fields(body)
	if len(f) != 2 {
		return 0, fmt.Errorf("schedule %q: want rate(value unit)", expr)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("schedule %q: the value must be a positive integer", expr)
	}
	units := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}
	unit := f[1]
	if n != 1 {
		// EventBridge wants the plural for any value but 1 and the singular for 1.
		if !strings.HasSuffix(unit, "s") {
			return 0, fmt.Errorf("schedule %q: use the plural unit (%ss) for a value other than 1", expr, unit)
		}
		unit = strings.TrimSuffix(unit, "s")
	}
	d, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("schedule %q: the unit must be minute(s), hour(s) or day(s)", expr)
	}
	return time.Duration(n) * d, nil
}

// Scheduler fires schedules from an injected clock: Tick fires what is due, Run ticks on a
// ticker, and FireNow fires one schedule at once for demos and tests. A target receives the
// "Scheduled Event" envelope EventBridge sends.
type Scheduler struct {
	now func() time.Time

	mu   sync.Mutex
	jobs map[string]*job
	bus  *Bus // for the envelope's account and region
}

type job struct {
	name   string
	expr   string
	every  time.Duration
	next   time.Time
	target Target
}

// NewScheduler returns a scheduler reading time from now (time.Now if nil).
func NewScheduler(now func() time.Time) *Scheduler {
	if now == nil {
		now = time.Now
	}
	return &Scheduler{now: now, jobs: map[string]*job{}, bus: New(now)}
}

// Add registers a rate schedule; it first fires one period after now. A cron expression is
// refused.
func (s *Scheduler) Add(name, expression string, target Target) error {
	every, err := ParseSchedule(expression)
	if err != nil {
		return fmt.Errorf("schedule %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[name]; dup {
		return fmt.Errorf("schedule %s already exists", name)
	}
	s.jobs[name] = &job{name: name, expr: expression, every: every, next: s.now().Add(every), target: target}
	return nil
}

// Next is when the named schedule fires next (zero if unknown).
func (s *Scheduler) Next(name string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[name]; ok {
		return j.next
	}
	return time.Time{}
}

// Tick fires, in name order, every schedule due at the clock's now, once each even if several
// periods went by (EventBridge does not backfill missed runs), and returns their names.
func (s *Scheduler) Tick(ctx context.Context) ([]string, error) {
	now := s.now()
	s.mu.Lock()
	var due []*job
	for _, j := range s.jobs {
		if !j.next.After(now) {
			due = append(due, j)
			for !j.next.After(now) {
				j.next = j.next.Add(j.every)
			}
		}
	}
	s.mu.Unlock()
	sort.Slice(due, func(i, k int) bool { return due[i].name < due[k].name })
	var names []string
	var errs []error
	for _, j := range due {
		names = append(names, j.name)
		if err := s.fire(ctx, j, now); err != nil {
			errs = append(errs, err)
		}
	}
	return names, errors.Join(errs...)
}

// FireNow fires the named schedule at once without moving its next firing.
func (s *Scheduler) FireNow(ctx context.Context, name string) error {
	s.mu.Lock()
	j, ok := s.jobs[name]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("schedule %s does not exist", name)
	}
	return s.fire(ctx, j, s.now())
}

// Run calls Tick on every value from ticks until ctx ends, passing errors to onError.
func (s *Scheduler) Run(ctx context.Context, ticks <-chan time.Time, onError func(error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			if _, err := s.Tick(ctx); err != nil && onError != nil {
				onError(err)
			}
		}
	}
}

func (s *Scheduler) fire(ctx context.Context, j *job, at time.Time) error {
	ev := Event{
		Version: "0", ID: newID(), DetailType: "Scheduled Event", Source: "aws.events",
		Account: s.bus.Account, Time: at.UTC().Truncate(time.Second), Region: s.bus.Region,
		Resources: []string{fmt.Sprintf("arn:aws:events:%s:%s:rule/%s", s.bus.Region, s.bus.Account, j.name)},
		Detail:    json.RawMessage("{}"),
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("schedule %s: encode event: %w", j.name, err)
	}
	if err := j.target(ctx, raw); err != nil {
		return fmt.Errorf("schedule %s (%s): %w", j.name, j.expr, err)
	}
	return nil
}
