package gardener

import (
	"slices"
	"testing"
	"time"
)

func TestDismissalOf(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	login := AppChange{ID: "c-1", URL: "http://app.test/login", Kind: "changed", Detail: "#login moved", At: at, Fingerprint: "f1"}
	same := login
	same.ID, same.Detail = "c-2", "seen again by a later sweep"
	changed := login
	changed.Fingerprint = "f2"
	unprinted := AppChange{ID: "c-3", URL: "http://app.test/login", Kind: "removed", Detail: "#login gone"}
	click := Step{Kind: Click, Locator: MustLocator("#signin")}
	ops := []Op{{Kind: OpReplace, Index: 2, Step: &click}}
	base := Proposal{TestID: "t", BaseVersion: 3, Triggers: []AppChange{login}, Verdict: Verdict{Ops: ops}}
	key := func(mut func(*Proposal)) DismissalKey {
		p := base
		mut(&p)
		return DismissalOf(p)
	}
	cases := []struct {
		name string
		a, b DismissalKey
		same bool
	}{
		{"the same page state seen by another change", key(func(*Proposal) {}), key(func(p *Proposal) { p.Triggers = []AppChange{same} }), true},
		{"order and repetition do not matter", key(func(p *Proposal) { p.Triggers = []AppChange{login, unprinted} }), key(func(p *Proposal) { p.Triggers = []AppChange{unprinted, login, login} }), true},
		{"the app changed again", key(func(*Proposal) {}), key(func(p *Proposal) { p.Triggers = []AppChange{changed} }), false},
		{"without a fingerprint the change's URL, kind and detail count", key(func(p *Proposal) { p.Triggers = []AppChange{unprinted} }), key(func(p *Proposal) {
			u := unprinted
			u.Detail = "#login renamed"
			p.Triggers = []AppChange{u}
		}), false},
		{"without triggers the ops identify the fix", key(func(p *Proposal) { p.Triggers = nil }), key(func(p *Proposal) { p.Triggers, p.Verdict.Ops = nil, nil }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := slices.Equal(c.a.Changes, c.b.Changes); got != c.same {
				t.Fatalf("changes %v and %v: equal %v, want %v", c.a.Changes, c.b.Changes, got, c.same)
			}
			if c.a.TestID != "t" || c.a.TestVersion != 3 || len(c.a.Changes) == 0 {
				t.Fatalf("key %+v", c.a)
			}
		})
	}
}

func TestMergeTriggers(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	c := func(id string, minutes int) AppChange {
		return AppChange{ID: id, At: at.Add(time.Duration(minutes) * time.Minute)}
	}
	cases := []struct {
		name       string
		open, more []AppChange
		want       []string
	}{
		{"appends new changes", []AppChange{c("a", 0)}, []AppChange{c("b", 1)}, []string{"a", "b"}},
		{"keeps a change once", []AppChange{c("a", 0)}, []AppChange{c("a", 0), c("b", 1)}, []string{"a", "b"}},
		{"orders by time, then id", []AppChange{c("z", 2)}, []AppChange{c("b", 1), c("a", 1)}, []string{"a", "b", "z"}},
		{"nothing to add", nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, x := range MergeTriggers(tc.open, tc.more) {
				got = append(got, x.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
