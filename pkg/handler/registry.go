package handler

import "github.com/driftgardener/gardener/pkg/gardener"

// Registry maps each function's logical id in template.yaml to its handler, for the local stack,
// which calls them the way Lambda would; functions/<name>/main.go start the same handlers one by
// one. projects are the projects the scheduled radar sweeps.
func (d Deps) Registry(projects []string) map[string]any {
	return map[string]any{
		"EligibilityFunction":    d.Eligibility,
		"SelfHealFunction":       d.Rung(gardener.StrategySelfHeal),
		"SuggestFixFunction":     d.Rung(gardener.StrategySuggestFix),
		"DiagnoseFunction":       d.Rung(gardener.StrategyDiagnose),
		"PersistFunction":        d.Persist,
		"PropagateFunction":      d.Propagate,
		"TriageFunction":         d.Triage,
		"NotifyFunction":         d.Notify,
		"RadarFunction":          d.Radar(projects),
		"DryRunFunction":         d.DryRun,
		"ProposeFunction":        d.Propose,
		"StagingSelectFunction":  d.StagingSelect,
		"StagingSummaryFunction": d.Summary,
		"ApiFunction":            d.API(),
	}
}
