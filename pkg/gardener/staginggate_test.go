package gardener

import (
	"strings"
	"testing"
)

// TestStagingGate: the staging pass runs only for a Pro project with auto-repair off, a key and
// the radar on; every other project gets one reason, auto-repair first.
func TestStagingGate(t *testing.T) {
	runs := Project{ID: "p", Plan: PlanPro, Model: "builtin", Radar: true}
	cases := []struct {
		name string
		edit func(*Project)
		want StagingSkip
		says string
	}{
		{"runs", nil, "", ""},
		{"auto-repair on", func(p *Project) { p.AutoRepair = true }, SkipRepairsItself, "repairs itself"},
		{"auto-repair before every other reason", func(p *Project) { p.AutoRepair, p.Plan, p.Model, p.Radar = true, PlanFree, "", false }, SkipRepairsItself, "repairs itself"},
		{"free plan", func(p *Project) { p.Plan = PlanFree }, SkipNotPro, "Pro feature"},
		{"no plan", func(p *Project) { p.Plan = "" }, SkipNotPro, "Pro feature"},
		{"no key", func(p *Project) { p.Model = "" }, SkipNoKey, "needs a key"},
		{"radar off", func(p *Project) { p.Radar = false }, SkipRadarOff, "radar off"},
		{"no key before radar off", func(p *Project) { p.Model, p.Radar = "", false }, SkipNoKey, "needs a key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := runs
			if c.edit != nil {
				c.edit(&p)
			}
			got, says := StagingGate(p)
			if got != c.want || !strings.Contains(says, c.says) || (got == "") != (says == "") {
				t.Errorf("StagingGate = %q, %q; want %q saying %q", got, says, c.want, c.says)
			}
		})
	}
}
