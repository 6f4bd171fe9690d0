package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// pre0msWait is a test record as the encoder wrote a wait of 0 ms before the decoder refused
// one: the "ms" left out, so the record never decodes again.
const pre0msWait = `{"id":"t-bad","project":"p-queue","name":"Broken","status":"active","version":3,` +
	`"steps":[{"kind":"goto","url":"/"},{"kind":"wait","for":"time"}]}`

// corruptCases plant a record that does not decode and check that it is named, and that it
// hides nothing else.
var corruptCases = []testCase{
	{name: "CorruptTestIsNamedAndSkipped", run: func(t *testing.T, f *fixture) {
		if f.opts.PutRawTest == nil {
			t.Fatal("storetest: the driver gives no Options.PutRawTest, which this case plants its record with")
		}
		f.opts.PutRawTest(t, f.store, "t-bad", "p-queue", []byte(pre0msWait))

		_, err := f.store.Test(f.ctx, "t-bad")
		wantErr(t, "reading the corrupt test", err, gardener.ErrCorrupt)
		if !strings.Contains(err.Error(), `test "t-bad"`) {
			t.Fatalf("reading the corrupt test: %v; want the error to name test \"t-bad\"", err)
		}

		list, err := f.store.Tests(f.ctx, "p-queue")
		corrupt, failure := gardener.SplitCorrupt(err)
		if failure != nil {
			t.Fatalf("listing p-queue failed as a whole: %v", failure)
		}
		if corrupt == nil || len(corrupt.Records) != 1 || corrupt.Records[0].ID != "t-bad" || corrupt.Records[0].Entity != "test" {
			t.Fatalf("listing p-queue reported %v; want test t-bad named as skipped", err)
		}
		var ids []string
		for _, tt := range list {
			ids = append(ids, tt.ID)
		}
		if !slices.Equal(ids, []string{"t-login"}) {
			t.Fatalf("tests of p-queue beside the corrupt one: %v, want [t-login]", ids)
		}

		// Another project's listing neither fails nor carries the report.
		other, err := f.store.Tests(f.ctx, "p-auto")
		if err != nil || len(other) != 1 || other[0].ID != "t-auto" {
			t.Fatalf("tests of p-auto: %v, %v; want [t-auto] and no error", other, err)
		}

		// The good test still takes writes, and a write to the corrupt one is refused, not
		// made over it.
		edit := f.test(t, "t-login")
		if _, err := f.store.SaveTest(f.ctx, edit); err != nil {
			t.Fatalf("saving t-login beside a corrupt test: %v", err)
		}
		bad := loginTest("t-bad", "p-queue")
		if _, err := f.store.SaveTest(f.ctx, bad); !errors.Is(err, gardener.ErrCorrupt) {
			t.Fatalf("saving over the corrupt test: %v, want the corruption reported", err)
		}
	}},
}
