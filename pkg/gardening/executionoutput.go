package gardening

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/jsonlist"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
)

// expandOutput is a repair machine's output as whoever reads the execution sees it. The machine
// passes briefs between its states — ids, never a test's steps, a fix's operations or a
// verdict (Step Functions passes at most 256 KiB) — and its output is its last state, so the
// winning rung's decision and what persist, triage and propagate wrote are put back whole,
// read from the store. Left as briefs, the emptied fields would read as null lists and zero
// counts (a repair with no operations, checks proven sensitive in 0 of 0, intent unconfirmed)
// contradicting the winner; an empty list of the records read back is [] as the API answers
// every list. Any other output (not a JSON object) is returned as it is.
func (s *Service) expandOutput(ctx context.Context, output string) (string, error) {
	var out map[string]json.RawMessage
	if json.Unmarshal([]byte(output), &out) != nil || out == nil {
		return output, nil
	}
	changed := false
	for _, expand := range []func(context.Context, map[string]json.RawMessage) (bool, error){s.expandWinner, s.expandPersisted, s.expandPropagated} {
		c, err := expand(ctx, out)
		if err != nil {
			return "", err
		}
		changed = changed || c
	}
	if !changed {
		return output, nil
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// expandWinner puts the whole of the winning rung's decision back where the machine passed its
// brief (see HandOff).
func (s *Service) expandWinner(ctx context.Context, out map[string]json.RawMessage) (bool, error) {
	var winner map[string]json.RawMessage
	if out["winner"] == nil || json.Unmarshal(out["winner"], &winner) != nil || winner["decision"] == nil {
		return false, nil
	}
	var brief tend.Decision
	if json.Unmarshal(winner["decision"], &brief) != nil || brief.Handoff == "" {
		return false, nil
	}
	full, err := s.Received(ctx, brief)
	if err != nil {
		return false, err
	}
	if winner["decision"], err = json.Marshal(jsonlist.Empty(full)); err != nil {
		return false, err
	}
	out["winner"], err = json.Marshal(winner)
	return err == nil, err
}

// expandPersisted puts the whole of what persist or triage wrote (persisted.persisted, passed as
// tend.Persisted.Brief) back.
func (s *Service) expandPersisted(ctx context.Context, out map[string]json.RawMessage) (bool, error) {
	var res map[string]json.RawMessage
	if out["persisted"] == nil || json.Unmarshal(out["persisted"], &res) != nil || res["persisted"] == nil {
		return false, nil
	}
	var brief tend.PersistedBrief
	if json.Unmarshal(res["persisted"], &brief) != nil {
		return false, nil
	}
	whole, err := s.wholeWritten(ctx, brief.Persisted())
	if err != nil {
		return false, err
	}
	if res["persisted"], err = whole.encode(); err != nil {
		return false, err
	}
	out["persisted"], err = json.Marshal(res)
	return err == nil, err
}

// expandPropagated puts the whole of each propagated write back (propagated.propagated, passed
// as tend.PropagatedWrite.Brief): what was written for it, and its verdict and operations, which
// are the verdict of what was written.
func (s *Service) expandPropagated(ctx context.Context, out map[string]json.RawMessage) (bool, error) {
	var res map[string]json.RawMessage
	var writes []json.RawMessage
	if out["propagated"] == nil || json.Unmarshal(out["propagated"], &res) != nil || res["propagated"] == nil || json.Unmarshal(res["propagated"], &writes) != nil {
		return false, nil
	}
	changed := false
	for i, raw := range writes {
		var brief struct {
			ladder.Propagated
			Persisted *tend.PersistedBrief `json:"persisted,omitempty"`
		}
		if json.Unmarshal(raw, &brief) != nil {
			continue
		}
		w := tend.PropagatedWrite{Propagated: brief.Propagated}
		var gone [][]string
		recovered := false
		if brief.Persisted != nil {
			whole, err := s.wholeWritten(ctx, brief.Persisted.Persisted())
			if err != nil {
				return false, err
			}
			w.Persisted = &whole.Persisted
			for _, p := range whole.gone {
				gone = append(gone, append([]string{"persisted"}, p...))
			}
			if whole.verdict != nil {
				w.Verdict, w.Ops, recovered = whole.verdict, whole.verdict.Ops, true
			}
		}
		if w.Verdict != nil && !recovered {
			// A brief's verdict keeps only its strategy, and nothing written says the rest.
			gone = append(gone, emptiedVerdict("verdict")...)
		}
		b, err := written{gone: gone}.encodeValue(w)
		if err != nil {
			return false, err
		}
		writes[i], changed = b, true
	}
	if !changed {
		return false, nil
	}
	var err error
	if res["propagated"], err = json.Marshal(writes); err != nil {
		return false, err
	}
	out["propagated"], err = json.Marshal(res)
	return err == nil, err
}

// written is what a brief of tend.Persisted stands for, read back from the store: the
// records whole, the verdict of the repair or proposal written (nil when it could not be read
// back), and the paths of the fields the brief emptied that the store could not give back
// (a record it does not hold), which are left out rather than shown empty.
type written struct {
	tend.Persisted
	verdict *gardener.Verdict
	gone    [][]string
}

// wholeWritten reads back from the store each record a brief of what was written names.
func (s *Service) wholeWritten(ctx context.Context, brief tend.Persisted) (written, error) {
	w := written{Persisted: brief}
	if a := brief.Applied; a != nil {
		full, found, gone, err := s.wholeApplied(ctx, *a)
		if err != nil {
			return w, err
		}
		w.Applied = &full
		if found {
			w.verdict = &full.Repair.Verdict
		}
		for _, p := range gone {
			w.gone = append(w.gone, append([]string{"applied"}, p...))
		}
	}
	if st := brief.Staged; st != nil {
		p, err := s.d.Store.Proposal(ctx, st.Proposal.ID)
		switch {
		case err == nil:
			w.Staged = &gardener.Staged{Outcome: st.Outcome, Superseded: st.Superseded, Proposal: p}
			w.verdict = &p.Verdict
		case errors.Is(err, gardener.ErrNotFound):
			w.gone = append(w.gone, emptiedVerdict("staged", "proposal", "verdict")...)
			w.gone = append(w.gone, []string{"staged", "proposal", "triggers"}, []string{"staged", "proposal", "failedStep"}, []string{"staged", "proposal", "error"})
		default:
			return w, err
		}
	}
	if tr := brief.Triage; tr != nil {
		issue, found, err := s.triageIssue(ctx, *tr)
		if err != nil {
			return w, err
		}
		if found {
			w.Triage = &issue
		} else {
			w.gone = append(w.gone, []string{"triage", "evidence"}, []string{"triage", "attempts"})
		}
	}
	return w, nil
}

// wholeApplied is an applied repair read back: the repair record (found says the store holds
// it), and the test as the repair wrote it — the stored test while it is still at that
// version, else the pre-repair steps with the fix's operations applied, as the write made them.
func (s *Service) wholeApplied(ctx context.Context, a lifecycle.Applied) (full lifecycle.Applied, found bool, gone [][]string, err error) {
	full = a
	r, err := s.d.Store.Repair(ctx, a.Repair.ID)
	switch {
	case err == nil:
		full.Repair, found = r, true
	case errors.Is(err, gardener.ErrNotFound):
		gone = append(gone, emptiedVerdict("repair", "verdict")...)
		gone = append(gone, []string{"repair", "preSteps"})
	default:
		return full, false, nil, err
	}
	t, err := s.d.Store.Test(ctx, a.Test.ID)
	if err != nil && !errors.Is(err, gardener.ErrNotFound) {
		return full, false, nil, err
	}
	if err == nil && t.Version == a.Test.Version {
		full.Test = t
		return full, found, gone, nil
	}
	if found && r.ToVersion == a.Test.Version {
		if steps, err := gardener.ApplySteps(r.PreSteps, r.Verdict.Ops); err == nil {
			full.Test.Steps = steps
			return full, found, gone, nil
		}
	}
	return full, found, append(gone, []string{"test", "steps"}), nil
}

// triageIssue is the stored triage issue a brief names; found is false when the store has none.
func (s *Service) triageIssue(ctx context.Context, brief gardener.TriageIssue) (gardener.TriageIssue, bool, error) {
	t, err := s.d.Store.TriageIssue(ctx, brief.ID)
	switch {
	case err == nil:
		return t, true, nil
	case errors.Is(err, gardener.ErrNotFound):
		return brief, false, nil
	}
	return brief, false, err
}

// emptiedVerdict are the paths of the fields a brief's verdict empties (it keeps the strategy),
// under prefix.
func emptiedVerdict(prefix ...string) [][]string {
	var out [][]string
	for _, k := range []string{"ops", "changes", "contract", "sensitivity", "intentConfirmed"} {
		out = append(out, append(append([]string{}, prefix...), k))
	}
	return out
}

// encode is the persisted record as JSON, without the fields that could not be read back.
func (w written) encode() (json.RawMessage, error) {
	return w.encodeValue(w.Persisted)
}

// encodeValue is v as JSON, an empty list as [] (as the API answers every list), without the
// paths in w.gone.
func (w written) encodeValue(v any) (json.RawMessage, error) {
	b, err := json.Marshal(jsonlist.Empty(v))
	if err != nil || len(w.gone) == 0 {
		return b, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	for _, path := range w.gone {
		m := doc
		for _, k := range path[:len(path)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				m = nil
				break
			}
			m = next
		}
		if m != nil {
			delete(m, path[len(path)-1])
		}
	}
	return json.Marshal(doc)
}
