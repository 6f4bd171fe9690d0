package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// DefaultStepTimeout bounds a step that sets no timeout of its own. Small, because a failing
// test waits it out at its failing step, and a ladder replays failing tests many times.
const DefaultStepTimeout = 5 * time.Second

// DefaultReplayLimit bounds a whole replay: more than the longest step may take (see
// gardener.MaxStepMillis), less than a Lambda may run (15 minutes), so a replay a page holds up
// ends with time left to record it.
const DefaultReplayLimit = 12 * time.Minute

// DefaultJSHeapMB is the JavaScript heap limit of a page, in MB: far above what an app's pages
// use, far below what takes a Lambda down.
const DefaultJSHeapMB = 512

// DefaultMemoryLimitMB bounds the resident memory of one page's process, in MB: room for the
// JavaScript heap and what a page holds beside it, and within a 2 GB Lambda with the runner.
const DefaultMemoryLimitMB = 1024

// Limits of a Runner; tests lower them to see what happens at a limit.
const (
	// defaultRecycleAfter is how many replays one Chromium serves before the runner starts a
	// new one for the next replays and closes the old once its last replay ended. A browser
	// that replays for hours grows: the suite bench's whole tree held 464 MB after 100
	// replays, 979 MB after 500 and 1,140 MB after 1,000, while a suite function has 2,048 MB
	// and stays warm for many sweeps. A start costs well under a second, about 0.5% of 200
	// replays.
	defaultRecycleAfter = 200
	// defaultMaxCandidates caps a snapshot's elements; real pages rarely have more visible ones.
	defaultMaxCandidates = 1500
	// defaultMaxSnapshotBytes caps a snapshot's candidates as JSON, so a snapshot fits a
	// Lambda's memory and a model's context with room to spare.
	defaultMaxSnapshotBytes = 2 << 20
	// defaultMaxText caps a snapshot's page text.
	defaultMaxText = 20 << 10
	// defaultHealthTimeout bounds the ping that tells a slow browser from a hung one. Generous,
	// because a false verdict relaunches the browser under every concurrent replay, and on two
	// loaded cores a healthy browser can take seconds to answer.
	defaultHealthTimeout = 10 * time.Second
)

// Options configures a Runner. The zero value works.
type Options struct {
	// SingleProcess runs Chromium as one process, for hosts that cannot fork a zygote. Such a
	// Chromium has one browser context (a second one crashes it): replays take turns in it, and
	// each starts with the cookies, cache and storage of the ones before cleared.
	SingleProcess bool
	// StepTimeout is the runner's default step timeout; ReplayOptions.StepTimeout and a step's
	// timeoutMs take precedence.
	StepTimeout time.Duration
	// ReplayLimit is the wall-clock limit of one replay (DefaultReplayLimit when zero): a replay
	// still running then is stopped, its page's script terminated and its tab closed, and ends
	// failed as a timeout with no snapshot.
	ReplayLimit time.Duration
	// JSHeapMB is the JavaScript heap limit of each page, in MB (DefaultJSHeapMB when zero): a
	// page that allocates past it crashes alone and its replay ends as a browser crash.
	JSHeapMB int
	// MemoryLimitMB bounds the resident memory of each of the browser's page processes (of
	// the whole browser, single-process), in MB (DefaultMemoryLimitMB when zero): the
	// browser's memory watchdog kills a process past it, and the replay whose page it held
	// ends as a browser crash.
	MemoryLimitMB int
	// OnStep, when set, is called with each step record as soon as the step has run (an intent
	// block's own record after its inner steps), for a live log. It is called from the
	// replaying goroutine and must not block.
	OnStep func(testID string, rec gardener.StepRecord)

	// noGateProxy starts the browser and its lanes without the gate proxy, the tab's own gate
	// alone deciding: only for BenchmarkSuite, which measures what the proxy costs.
	noGateProxy bool
	// healthTimeout is how long the browser gets to answer a ping before it counts as hung: the
	// ping follows a step that failed after waiting, and a tab that is slow to open.
	healthTimeout time.Duration
	// starved makes the wait after an action take one look at once instead of four quiet
	// looks, as on a machine so loaded that a navigation's events arrive after them: for the
	// tests that prove an action's navigation is waited for all the same.
	starved bool
	// recycleAfter is defaultRecycleAfter unless a test lowers it.
	recycleAfter int
	// Snapshot caps.
	maxCandidates    int
	maxSnapshotBytes int
	maxText          int
}

// Runner replays tests in one shared Chromium. It is safe for concurrent use; Close stops the
// browser.
type Runner struct {
	opts Options
	// turn, for a single-process browser, holds a token while a replay runs: the browser has
	// one context, so its replays take turns, across relaunches too.
	turn   chan struct{}
	mu     sync.Mutex
	inst   *instance
	closed bool
	active sync.WaitGroup
}

var _ gardener.Runner = (*Runner)(nil)

// ErrClosed is returned by Replay after Close.
var ErrClosed = errors.New("browser runner is closed")

// New returns a Runner; the browser starts on the first Replay.
func New(opts Options) *Runner {
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = DefaultStepTimeout
	}
	if opts.recycleAfter <= 0 {
		opts.recycleAfter = defaultRecycleAfter
	}
	if opts.ReplayLimit <= 0 {
		opts.ReplayLimit = DefaultReplayLimit
	}
	if opts.JSHeapMB <= 0 {
		opts.JSHeapMB = DefaultJSHeapMB
	}
	if opts.MemoryLimitMB <= 0 {
		opts.MemoryLimitMB = DefaultMemoryLimitMB
	}
	opts.healthTimeout = cmp.Or(opts.healthTimeout, defaultHealthTimeout)
	opts.maxCandidates = cmp.Or(opts.maxCandidates, defaultMaxCandidates)
	opts.maxSnapshotBytes = cmp.Or(opts.maxSnapshotBytes, defaultMaxSnapshotBytes)
	opts.maxText = cmp.Or(opts.maxText, defaultMaxText)
	r := &Runner{opts: opts}
	if opts.SingleProcess {
		r.turn = make(chan struct{}, 1)
	}
	return r
}

func (r *Runner) instance() (*instance, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.inst != nil && !r.inst.alive() {
		r.inst.close()
		r.inst = nil
	}
	if r.inst == nil {
		in, err := launch(r.opts)
		var failed *startError
		if errors.As(err, &failed) {
			// Chromium now and then dies while it starts on a loaded machine (a single-process
			// one segfaults; a whole one crashed before giving its address, exit status and
			// all); one more start is as good as the first should have been, and spares every
			// replay waiting for the browser an error. A start that hung is not tried again:
			// that would double a wait already 90 s long.
			in, err = launch(r.opts)
		}
		if err != nil {
			return nil, err
		}
		r.inst = in
	}
	r.inst.inUse++
	return r.inst, nil
}

// discard drops a crashed or hung browser so the next replay launches a new one.
func (r *Runner) discard(in *instance) {
	r.mu.Lock()
	if r.inst == in {
		r.inst = nil
	}
	r.mu.Unlock()
	in.close()
}

// Close stops the browser after the replays in flight have ended. Replays started after Close
// return ErrClosed.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.active.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inst != nil {
		r.inst.close()
		r.inst = nil
	}
	return nil
}

// Replay runs the test in a tab of a browser context that no other replay uses meanwhile,
// cleared of what earlier replays left in it. A failing test is a Replay whose result did
// not pass; the error is for a browser that cannot be started or a ctx that ended.
func (r *Runner) Replay(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return gardener.Replay{}, ErrClosed
	}
	r.active.Add(1)
	r.mu.Unlock()
	defer r.active.Done()
	if r.turn != nil {
		// Taken before the browser is, so a replay that waited gets the browser relaunched
		// after a crash in the turn before it, not the dead one.
		select {
		case r.turn <- struct{}{}:
		case <-ctx.Done():
			return gardener.Replay{}, fmt.Errorf("replay of test %s: waiting for the single-process browser: %w", t.ID, ctx.Err())
		}
		defer func() { <-r.turn }()
	}

	in, err := r.instance()
	if err != nil {
		return gardener.Replay{}, err
	}
	rep, crashed, err := replay(ctx, in, r.opts, t, opts)
	if crashed {
		r.discard(in)
	}
	r.done(in)
	return rep, err
}

// done ends a replay on in. The replay that brings in to its recycleAfter-th retires it: the
// next replays launch a new browser, and the last replay in flight on in closes it.
func (r *Runner) done(in *instance) {
	r.mu.Lock()
	in.inUse--
	in.served++
	if in.served >= r.opts.recycleAfter && r.inst == in {
		r.inst = nil
		in.retired = true
	}
	last := in.retired && in.inUse == 0
	r.mu.Unlock()
	if last {
		in.close()
	}
}

// Leftovers lists the targets alive in the browser beyond what the runner keeps between
// replays (each lane's two blank tabs, its window's and its replays', and the browser's own
// interface), as "type url" lines: pages, popups, workers and service workers a replay left. With no replay running, a sound runner
// has none. It does not start a browser; with none running there is nothing left.
func (r *Runner) Leftovers(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	in := r.inst
	r.mu.Unlock()
	if in == nil || !in.alive() {
		return nil, nil
	}
	all, err := in.targets(ctx)
	if err != nil {
		return nil, err
	}
	kept := map[target.ID]bool{in.holder: true}
	if in.single != nil {
		kept[in.single.tabID] = true
	}
	in.lanesMu.Lock()
	for l := range in.lanes {
		kept[l.holder] = true
		kept[l.tabID] = true
	}
	in.lanesMu.Unlock()
	var left []string
	for _, t := range all {
		if !kept[t.TargetID] && !browserOwn[t.Type] {
			left = append(left, t.Type+" "+t.URL)
		}
	}
	return left, nil
}
