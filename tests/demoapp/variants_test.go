package demoapp

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// stepAt resolves a step path such as "4" or "1.5" in a test.
func stepAt(t gardener.Test, path string) (gardener.Step, bool) {
	steps := t.Steps
	var s gardener.Step
	for _, part := range strings.Split(path, ".") {
		i, err := strconv.Atoi(part)
		if err != nil || i < 1 || i > len(steps) {
			return gardener.Step{}, false
		}
		s = steps[i-1]
		steps = s.Steps
	}
	return s, true
}

func TestVariantCatalogue(t *testing.T) {
	tests, err := Tests()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]gardener.Test{}
	for _, tt := range tests {
		byID[tt.ID] = tt
	}
	vs := Variants()
	if vs[0].Name != BaselineName || vs[0].Kind != Baseline {
		t.Fatalf("first variant is %s (%s), want the baseline", vs[0].Name, vs[0].Kind)
	}
	count := map[Kind]int{}
	seen := map[string]bool{}
	for _, v := range vs {
		count[v.Kind]++
		if seen[v.Name] {
			t.Errorf("variant %s is listed twice", v.Name)
		}
		seen[v.Name] = true
		if v.Description == "" || v.CorrectRepair == "" {
			t.Errorf("variant %s lacks a description or a correct repair", v.Name)
		}
		switch v.Kind {
		case Baseline, Neutral:
			if len(v.Breaks) != 0 {
				t.Errorf("%s variant %s breaks %v; it must break nothing", v.Kind, v.Name, v.Breaks)
			}
		case Drift, Regression:
			if len(v.Breaks) == 0 {
				t.Errorf("%s variant %s breaks no saved test", v.Kind, v.Name)
			}
		default:
			t.Errorf("variant %s has unknown kind %q", v.Name, v.Kind)
		}
		for id, path := range v.Breaks {
			tt, ok := byID[id]
			if !ok {
				t.Errorf("variant %s breaks %q, which is no saved test", v.Name, id)
				continue
			}
			s, ok := stepAt(tt, path)
			if !ok {
				t.Errorf("variant %s breaks %s at step %s, which the test does not have", v.Name, id, path)
				continue
			}
			// Drift is a locator that no longer finds its element; a regression is a check the
			// app no longer satisfies, which is why no repair may make it pass.
			if v.Kind == Drift && (s.IsCheck() || s.Target().IsZero()) {
				t.Errorf("drift %s breaks %s at step %s (%s), which is not an action on a located element", v.Name, id, path, s)
			}
			if v.Kind == Regression && !s.IsCheck() {
				t.Errorf("regression %s breaks %s at step %s (%s), which is not a check: a repair could route around it", v.Name, id, path, s)
			}
		}
	}
	if count[Drift] < 9 || count[Regression] < 5 || count[Neutral] < 1 || count[Baseline] != 1 {
		t.Errorf("variants by kind = %v; want 1 baseline, at least 9 drifts, 5 regressions and 1 neutral", count)
	}
}

func TestSetVariant(t *testing.T) {
	app := New()
	if got := app.Variant(); got != BaselineName {
		t.Fatalf("a new App serves %q, want %q", got, BaselineName)
	}
	for _, name := range VariantNames() {
		if err := app.SetVariant(name); err != nil {
			t.Errorf("SetVariant(%q): %v", name, err)
		}
		if got := app.Variant(); got != name {
			t.Errorf("after SetVariant(%q), Variant() = %q", name, got)
		}
	}
	err := app.SetVariant("no-such-variant")
	var unknown *UnknownVariantError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "no-such-variant") || !strings.Contains(err.Error(), vCookieBanner) {
		t.Errorf("SetVariant(unknown) = %v; want an UnknownVariantError naming it and the known variants", err)
	}
	if app.Variant() != vValidationGone {
		t.Errorf("a refused SetVariant changed the variant to %q", app.Variant())
	}
}
