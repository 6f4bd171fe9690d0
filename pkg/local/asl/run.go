package asl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// run is one execution in progress.
type run struct {
	m    *Machine
	exec *Execution
	mu   sync.Mutex
}

// contextObject is the part of the context object ($$) the interpreter gives a payload template:
// the execution's id (its ARN) and name, which a task passes on to know the execution it works for.
func (r *run) contextObject() map[string]any {
	return map[string]any{"Execution": map[string]any{"Id": r.exec.ID, "Name": r.exec.Name}}
}

// frame is where a graph runs: its scope label for the history, "" at the top.
type frame struct {
	scope string
}

func (fr frame) child(label string) frame {
	if fr.scope == "" {
		return frame{scope: label}
	}
	return frame{scope: fr.scope + "/" + label}
}

func aborted(ctx context.Context) *Failure {
	return &Failure{Name: "States.Aborted", Cause: context.Cause(ctx).Error(), aborted: true}
}

func (r *run) runGraph(ctx context.Context, g *graph, input any, fr frame) (any, *Failure) {
	name := g.startAt
	for {
		if ctx.Err() != nil {
			return nil, aborted(ctx)
		}
		if f := r.overHistory(); f != nil {
			return nil, f
		}
		st := g.states[name]
		out, next, f := r.runState(ctx, st, input, fr)
		if f != nil {
			return nil, f
		}
		if next == "" {
			return out, nil
		}
		input, name = out, next
	}
}

// overHistory fails the execution once its history reaches MaxHistory events.
func (r *run) overHistory() *Failure {
	if n := r.historyLen(); n >= MaxHistory {
		return fail(ErrRuntime, "the execution history reached %d events, the Step Functions limit", n)
	}
	return nil
}

func (r *run) runState(ctx context.Context, st *state, raw any, fr frame) (any, string, *Failure) {
	r.record(Event{Type: EventStateEntered, State: st.name, StateType: st.typ, Scope: fr.scope, Input: mustEncode(raw)})
	var out any
	var next string
	var f *Failure
	switch st.typ {
	case "Task", "Map":
		out, next, f = r.withRetry(ctx, st, raw, fr)
	case "Pass":
		out, f = r.pass(st, raw)
		next = st.next
	case "Choice":
		out, next, f = r.choice(st, raw)
	case "Succeed":
		out, f = r.filter(st, raw)
	case "Fail":
		f = &Failure{Name: st.errName, Cause: st.cause}
	}
	if f == nil {
		enc := mustEncode(out)
		if len(enc) > MaxPayload {
			f = fail(ErrDataLimitExceeded, "state %q output is %d bytes, over the %d byte limit", st.name, len(enc), MaxPayload)
		} else {
			r.record(Event{Type: EventStateExited, State: st.name, StateType: st.typ, Scope: fr.scope, Output: enc, Next: next})
		}
	}
	return out, next, f
}

func applyFilter(st *state, field string, op optPath, v any) (any, *Failure) {
	if op.null {
		return map[string]any{}, nil
	}
	out, ok := op.p.eval(v, nil)
	if !ok {
		return nil, fail(ErrRuntime, "state %q: %s %s does not match anything in %s", st.name, field, op.p.src, truncate(mustEncode(v)))
	}
	return out, nil
}

// filter applies InputPath then OutputPath, for the states without a result.
func (r *run) filter(st *state, raw any) (any, *Failure) {
	eff, f := applyFilter(st, "InputPath", st.inputPath, raw)
	if f != nil {
		return nil, f
	}
	return applyFilter(st, "OutputPath", st.outputPath, eff)
}

// finish places a result into the raw input by ResultPath and applies OutputPath.
func finish(st *state, raw, result any) (any, *Failure) {
	out, f := applyResultPath(st, st.resultPath, raw, result)
	if f != nil {
		return nil, f
	}
	return applyFilter(st, "OutputPath", st.outputPath, out)
}

func applyResultPath(st *state, rp optPath, raw, result any) (any, *Failure) {
	if rp.null {
		return raw, nil
	}
	out, err := rp.p.set(raw, result)
	if err != nil {
		return nil, fail(ErrResultPathMatch, "state %q: %v", st.name, err)
	}
	return out, nil
}

func (r *run) pass(st *state, raw any) (any, *Failure) {
	eff, f := applyFilter(st, "InputPath", st.inputPath, raw)
	if f != nil {
		return nil, f
	}
	result := eff
	if st.parameters != nil {
		v, err := st.parameters.eval(eff, r.contextObject())
		if err != nil {
			return nil, asFailure(st, err)
		}
		result = v
	}
	if st.hasResult {
		result = st.result
	}
	return finish(st, raw, result)
}

func (r *run) choice(st *state, raw any) (any, string, *Failure) {
	eff, f := applyFilter(st, "InputPath", st.inputPath, raw)
	if f != nil {
		return nil, "", f
	}
	next := st.dflt
	for _, rule := range st.choices {
		ok, err := rule.eval(eff)
		if err != nil {
			return nil, "", asFailure(st, err)
		}
		if ok {
			next = rule.next
			break
		}
	}
	if next == "" {
		return nil, "", fail(ErrNoChoiceMatched, "state %q: no choice rule matched and there is no Default", st.name)
	}
	out, f := applyFilter(st, "OutputPath", st.outputPath, eff)
	return out, next, f
}

// asFailure turns an evaluation error into the state's failure, keeping an ASL error name.
func asFailure(st *state, err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return fail(ErrRuntime, "state %q: %v", st.name, err)
}

// withRetry runs a Task or Map state with its Retry and Catch fields: the first
// retrier whose ErrorEquals matches decides (and, once its MaxAttempts are spent, no other
// retrier is tried); then the first matching catcher routes the error output.
func (r *run) withRetry(ctx context.Context, st *state, raw any, fr frame) (any, string, *Failure) {
	attempts := make([]int, len(st.retry))
	for retries := 0; ; {
		var out any
		var f *Failure
		switch st.typ {
		case "Task":
			out, f = r.task(ctx, st, raw, fr, retries)
		case "Map":
			out, f = r.mapState(ctx, st, raw, fr)
		}
		if f == nil {
			return out, st.next, nil
		}
		if f.terminal() {
			return nil, "", f
		}
		if hf := r.overHistory(); hf != nil {
			return nil, "", hf
		}
		if i := firstMatch(st.retry, f.Name); i >= 0 && attempts[i] < st.retry[i].maxAttempts {
			d := st.retry[i].retryDelay(attempts[i])
			attempts[i]++
			retries++
			r.record(Event{Type: EventRetryScheduled, State: st.name, StateType: st.typ, Scope: fr.scope, Error: f.Name, Cause: f.Cause, Attempt: retries, Delay: d})
			if err := r.m.cfg.Sleep(ctx, d); err != nil {
				return nil, "", aborted(ctx)
			}
			continue
		}
		for _, ct := range st.catch {
			if !matches(ct.errorEquals, f.Name) {
				continue
			}
			out, cf := applyResultPath(st, ct.resultPath, raw, map[string]any{"Error": f.Name, "Cause": f.Cause})
			if cf != nil {
				return nil, "", cf
			}
			r.record(Event{Type: EventErrorCaught, State: st.name, StateType: st.typ, Scope: fr.scope, Error: f.Name, Cause: f.Cause, Next: ct.next})
			return out, ct.next, nil
		}
		return nil, "", f
	}
}

func firstMatch(retry []*retrier, name string) int {
	for i, rt := range retry {
		if matches(rt.errorEquals, name) {
			return i
		}
	}
	return -1
}

func (r *run) task(ctx context.Context, st *state, raw any, fr frame, retries int) (any, *Failure) {
	eff, f := applyFilter(st, "InputPath", st.inputPath, raw)
	if f != nil {
		return nil, f
	}
	params := eff
	if st.parameters != nil {
		v, err := st.parameters.eval(eff, r.contextObject())
		if err != nil {
			return nil, asFailure(st, err)
		}
		params = v
	}
	result, f := r.invoke(ctx, st, params, fr, retries)
	if f != nil {
		return nil, f
	}
	return finish(st, raw, result)
}

// invoke calls the task's resource with its parameters, bounded by TimeoutSeconds.
func (r *run) invoke(ctx context.Context, st *state, params any, fr frame, retries int) (any, *Failure) {
	if r.m.cfg.Resolve == nil {
		return nil, fail(ErrRuntime, "state %q: no resolver is configured for resource %s", st.name, st.resource)
	}
	inv, err := r.m.cfg.Resolve(st.resource)
	if err != nil || inv == nil {
		return nil, fail(ErrRuntime, "state %q: resource %s cannot be resolved: %v", st.name, st.resource, err)
	}
	body := mustEncode(params)
	r.record(Event{Type: EventTaskScheduled, State: st.name, StateType: st.typ, Scope: fr.scope, Resource: st.resource, Input: body, Attempt: retries})

	tctx, cancel := ctx, context.CancelFunc(func() {})
	if st.timeout > 0 {
		tctx, cancel = context.WithTimeout(ctx, st.timeout)
	}
	defer cancel()
	type reply struct {
		out json.RawMessage
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- reply{err: panicFailure(p)}
			}
		}()
		out, err := inv(tctx, body)
		ch <- reply{out, err}
	}()
	var rep reply
	select {
	case rep = <-ch:
	case <-tctx.Done():
	}
	if ctx.Err() != nil {
		return nil, aborted(ctx)
	}
	if tctx.Err() == context.DeadlineExceeded {
		f := fail(ErrTimeout, "state %q: task %s did not finish within %s", st.name, st.resource, st.timeout)
		r.record(Event{Type: EventTaskTimedOut, State: st.name, StateType: st.typ, Scope: fr.scope, Resource: st.resource, Error: f.Name, Cause: f.Cause, Attempt: retries})
		return nil, f
	}
	if rep.err != nil {
		f := lambdaFailure(rep.err)
		r.record(Event{Type: EventTaskFailed, State: st.name, StateType: st.typ, Scope: fr.scope, Resource: st.resource, Error: f.Name, Cause: f.Cause, Attempt: retries})
		return nil, f
	}
	if len(rep.out) == 0 {
		rep.out = json.RawMessage("null")
	}
	out, err := decodeValue(rep.out)
	if err != nil {
		return nil, fail(ErrRuntime, "state %q: task %s returned invalid JSON: %v", st.name, st.resource, err)
	}
	r.record(Event{Type: EventTaskSucceeded, State: st.name, StateType: st.typ, Scope: fr.scope, Resource: st.resource, Output: rep.out, Attempt: retries})
	return out, nil
}

// panicFailure reports a panicking handler the way the Lambda Go runtime does: the panic
// value's type name as the error.
func panicFailure(p any) *Failure {
	name := reflectName(p)
	cause, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{fmt.Sprint(p), name})
	return &Failure{Name: name, Cause: string(cause)}
}

// mapState runs the processor once per item of ItemsPath, each on the item as its ItemSelector
// shapes it (where $$.Map.Item.Index and $$.Map.Item.Value name the item), and places the
// array of results by ResultPath.
func (r *run) mapState(ctx context.Context, st *state, raw any, fr frame) (any, *Failure) {
	eff, f := applyFilter(st, "InputPath", st.inputPath, raw)
	if f != nil {
		return nil, f
	}
	v, ok := st.itemsPath.eval(eff, nil)
	items, isArr := v.([]any)
	if !ok || !isArr {
		return nil, fail(ErrRuntime, "state %q: ItemsPath %s must select an array, got %s", st.name, st.itemsPath.src, truncate(mustEncode(v)))
	}
	inputs := make([]any, len(items))
	for i, item := range items {
		inputs[i] = item
		if st.parameters != nil {
			ctxObj := r.contextObject()
			ctxObj["Map"] = map[string]any{"Item": map[string]any{"Index": json.Number(fmt.Sprint(i)), "Value": item}}
			in, err := st.parameters.eval(eff, ctxObj)
			if err != nil {
				return nil, asFailure(st, err)
			}
			inputs[i] = in
		}
	}
	results, f := r.fanOut(ctx, len(inputs), st.maxConcurrency, func(ctx context.Context, i int) (any, *Failure) {
		scope := fr.child(fmt.Sprintf("%s[%d]", st.name, i))
		r.record(Event{Type: EventIterationStarted, State: st.name, StateType: st.typ, Scope: scope.scope, Input: mustEncode(inputs[i])})
		out, f := r.runGraph(ctx, st.processor, inputs[i], scope)
		if f != nil {
			if !f.aborted {
				r.record(Event{Type: EventIterationFailed, State: st.name, StateType: st.typ, Scope: scope.scope, Error: f.Name, Cause: f.Cause})
			}
			return nil, f
		}
		r.record(Event{Type: EventIterationSucceeded, State: st.name, StateType: st.typ, Scope: scope.scope, Output: mustEncode(out)})
		return out, nil
	})
	if f != nil {
		return nil, f
	}
	return finish(st, raw, results)
}

// fanOut runs n jobs with at most limit at once (0: all at once) and returns their results in
// order. The first failure cancels the jobs still running and is the one reported.
func (r *run) fanOut(ctx context.Context, n, limit int, job func(context.Context, int) (any, *Failure)) ([]any, *Failure) {
	if limit <= 0 || limit > n {
		limit = n
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make([]any, n)
	var first *Failure
	var once sync.Once
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if f := r.overHistory(); f != nil {
			once.Do(func() { first = f })
			<-sem
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out, f := job(ctx, i)
			if f != nil {
				if !f.aborted {
					once.Do(func() {
						first = f
						cancel(errors.New("another iteration failed"))
					})
				}
				return
			}
			results[i] = out
		}(i)
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if ctx.Err() != nil {
		return nil, aborted(ctx)
	}
	return results, nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
