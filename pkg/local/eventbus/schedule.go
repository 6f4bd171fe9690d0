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

// Schedule is a parsed EventBridge schedule expression.
type Schedule interface {
	// Next is the first firing time strictly after t.
	Next(t time.Time) time.Time
}

// ParseSchedule parses rate(N unit) and cron(min hour day-of-month month day-of-week year),
// in UTC, as EventBridge rules take them. L, W and # in cron fields are refused.
func ParseSchedule(expr string) (Schedule, error) {
	switch {
	case strings.HasPrefix(expr, "rate(") && strings.HasSuffix(expr, ")"):
		return parseRate(expr, expr[5:len(expr)-1])
	case strings.HasPrefix(expr, "cron(") && strings.HasSuffix(expr, ")"):
		return parseCron(expr, expr[5:len(expr)-1])
	}
	return nil, fmt.Errorf("schedule %q: want rate(…) or cron(…)", expr)
}

type rate time.Duration

func (r rate) Next(t time.Time) time.Time { return t.Add(time.Duration(r)) }

func parseRate(expr, body string) (Schedule, error) {
	f := strings.Fields(body)
	if len(f) != 2 {
		return nil, fmt.Errorf("schedule %q: want rate(value unit)", expr)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("schedule %q: the value must be a positive integer", expr)
	}
	units := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}
	unit := f[1]
	if n != 1 {
		// EventBridge wants the plural for any value but 1 and the singular for 1.
		if !strings.HasSuffix(unit, "s") {
			return nil, fmt.Errorf("schedule %q: use the plural unit (%ss) for a value other than 1", expr, unit)
		}
		unit = strings.TrimSuffix(unit, "s")
	}
	d, ok := units[unit]
	if !ok {
		return nil, fmt.Errorf("schedule %q: the unit must be minute(s), hour(s) or day(s)", expr)
	}
	return rate(time.Duration(n) * d), nil
}

// cron holds the allowed values of each field as sets.
type cron struct {
	minute, hour, dom, month, dow, year map[int]bool
	anyDOM, anyDOW                      bool
}

var monthNames = map[string]int{"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12}
var dayNames = map[string]int{"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}

func parseCron(expr, body string) (Schedule, error) {
	f := strings.Fields(body)
	if len(f) != 6 {
		return nil, fmt.Errorf("schedule %q: cron takes 6 fields (minutes hours day-of-month month day-of-week year), got %d", expr, len(f))
	}
	if (f[2] == "?") == (f[4] == "?") {
		return nil, fmt.Errorf("schedule %q: exactly one of day-of-month and day-of-week must be ?", expr)
	}
	c := &cron{anyDOM: f[2] == "?", anyDOW: f[4] == "?"}
	specs := []struct {
		dst    *map[int]bool
		src    string
		lo, hi int
		names  map[string]int
		name   string
	}{
		{&c.minute, f[0], 0, 59, nil, "minutes"},
		{&c.hour, f[1], 0, 23, nil, "hours"},
		{&c.dom, f[2], 1, 31, nil, "day-of-month"},
		{&c.month, f[3], 1, 12, monthNames, "month"},
		{&c.dow, f[4], 1, 7, dayNames, "day-of-week"},
		{&c.year, f[5], 1970, 2199, nil, "year"},
	}
	for _, s := range specs {
		set, err := cronField(s.src, s.lo, s.hi, s.names)
		if err != nil {
			return nil, fmt.Errorf("schedule %q: %s: %w", expr, s.name, err)
		}
		*s.dst = set
	}
	return c, nil
}

func cronField(src string, lo, hi int, names map[string]int) (map[int]bool, error) {
	set := map[int]bool{}
	if src == "?" {
		return set, nil
	}
	for _, part := range strings.Split(src, ",") {
		// Month and day names contain L and W, so only numeric fields are searched for them.
		if strings.Contains(part, "#") || part == "L" || names == nil && strings.ContainsAny(part, "LW") {
			return nil, fmt.Errorf("%q: L, W and # are not supported locally", part)
		}
		step := 1
		if base, s, ok := strings.Cut(part, "/"); ok {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%q: bad step", part)
			}
			step, part = n, base
		}
		from, to := lo, hi
		switch {
		case part == "*":
		case strings.Contains(part, "-"):
			a, b, _ := strings.Cut(part, "-")
			var err error
			if from, err = cronValue(a, names); err != nil {
				return nil, err
			}
			if to, err = cronValue(b, names); err != nil {
				return nil, err
			}
		default:
			v, err := cronValue(part, names)
			if err != nil {
				return nil, err
			}
			from = v
			if step == 1 {
				to = v
			}
		}
		if from < lo || to > hi || from > to {
			return nil, fmt.Errorf("%q is outside %d-%d", part, lo, hi)
		}
		for v := from; v <= to; v += step {
			set[v] = true
		}
	}
	return set, nil
}

func cronValue(s string, names map[string]int) (int, error) {
	if v, ok := names[strings.ToUpper(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// Next walks forward field by field, from the year down to the minute; a schedule that never
// fires again (its years are past) returns the zero time.
func (c *cron) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	for t.Year() <= 2199 {
		switch {
		case !c.year[t.Year()]:
			t = time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC)
		case !c.month[int(t.Month())]:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !c.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case !c.hour[t.Hour()]:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, time.UTC)
		case !c.minute[t.Minute()]:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

func (c *cron) dayMatches(t time.Time) bool {
	if c.anyDOM {
		return c.dow[int(t.Weekday())+1]
	}
	return c.dom[t.Day()]
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
	name     string
	expr     string
	schedule Schedule
	next     time.Time
	target   Target
}

// NewScheduler returns a scheduler reading time from now (time.Now if nil).
func NewScheduler(now func() time.Time) *Scheduler {
	if now == nil {
		now = time.Now
	}
	return &Scheduler{now: now, jobs: map[string]*job{}, bus: New(now)}
}

// Add registers a schedule; its first firing is the first time after now that it names.
func (s *Scheduler) Add(name, expression string, target Target) error {
	sch, err := ParseSchedule(expression)
	if err != nil {
		return fmt.Errorf("schedule %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[name]; dup {
		return fmt.Errorf("schedule %s already exists", name)
	}
	s.jobs[name] = &job{name: name, expr: expression, schedule: sch, next: sch.Next(s.now()), target: target}
	return nil
}

// Next is when the named schedule fires next (zero if never or unknown).
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
		if !j.next.IsZero() && !j.next.After(now) {
			due = append(due, j)
			for !j.next.IsZero() && !j.next.After(now) {
				j.next = j.schedule.Next(j.next)
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
