package spaapp_test

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestSlottedDialogContentIsInTheModal: the invite form, light-DOM content a dialog component
// shows through its shadow root's <slot>, is inside the open modal as rendered: the snapshot
// lists its buttons as in the modal and usable, and the page behind as inert.
func TestSlottedDialogContentIsInTheModal(t *testing.T) {
	t.Parallel()
	_, opts := serve(t)
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/members"},
		{"kind":"click","locator":"role=button[name=\"Invite member\"]"},
		{"kind":"click","locator":"role=button[name=\"No such button\"]","timeoutMs":300}]`))
	if err != nil {
		t.Fatal(err)
	}
	rep := replay(t, gardener.Test{ID: "invite-snapshot", ProjectID: "crewdesk", Steps: steps}, opts)
	if rep.Result.Passed || rep.Result.FailedStep != "3" || rep.Snapshot == nil {
		t.Fatalf("want a failure at step 3 with a snapshot; passed %v, step %s: %s", rep.Result.Passed, rep.Result.FailedStep, rep.Result.Message)
	}
	seen := map[string]gardener.Fingerprint{}
	for _, c := range rep.Snapshot.Candidates {
		seen[c.AccessibleName] = c
	}
	for _, name := range []string{"Send invite", "Cancel"} {
		c, ok := seen[name]
		if !ok {
			t.Fatalf("the snapshot lacks the dialog's %q button", name)
		}
		if c.Inert || !c.Modal {
			t.Errorf("the dialog's %q button: inert %v, in the modal %v; want usable and in the modal", name, c.Inert, c.Modal)
		}
	}
	if c, ok := seen["Invite member"]; !ok || !c.Inert {
		t.Errorf("the page's Invite member button behind the modal is not inert: %+v", c)
	}
}
