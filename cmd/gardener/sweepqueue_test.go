package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/radar"
)

// TestSweepQueueSkipsACorruptProposal: a stored proposal that does not decode is named beside
// the queue and the proposals that decode are still shown; the sweep does not fail on it.
func TestSweepQueueSkipsACorruptProposal(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}}
	err = store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin"})
	if err == nil {
		err = store.CreateTest(ctx, gardener.Test{ID: "t-1", ProjectID: "shop", Name: "sign in", Status: gardener.StatusActive, Version: 1, Steps: steps})
	}
	if err == nil {
		_, err = store.StageProposal(ctx, gardener.Proposal{ID: "pr-good", ProjectID: "shop", TestID: "t-1", BaseVersion: 1, Status: gardener.ProposalProposed, StagedAt: at, UpdatedAt: at})
	}
	if err == nil {
		err = store.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("proposals")).Put([]byte("pr-bad"), []byte(`{"id":"pr-bad","projectId":"shop","testId":"t-1","stagedAt":"yesterday"}`))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if store, err = embedded.Open(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	q, corrupt, err := readQueue(ctx, &radar.Radar{Store: store, Now: func() time.Time { return at }}, "shop")
	if err != nil {
		t.Fatalf("a corrupt proposal failed the queue: %v", err)
	}
	if len(q.Rows) != 1 || q.Rows[0].ProposalID != "pr-good" {
		t.Errorf("queue rows %+v, want pr-good alone", q.Rows)
	}
	if len(corrupt) != 1 || !strings.Contains(corrupt[0], "pr-bad") {
		t.Errorf("corrupt %q, want pr-bad named", corrupt)
	}
}
