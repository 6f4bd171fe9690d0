package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// reachCLI is the probe the CLI's application layer asks before it replays (gardening.Deps.Reach):
// the one every door's service is built with.
var reachCLI = browser.Reach

// reachApp asks, before a command writes anything of its own (a test file synced into the state,
// a project created), the same question the application layer asks before it replays: is the app
// at base there? An app that is not is a *gardener.UnreachableError (exit 3), named with what to do.
func reachApp(ctx context.Context, base string) error {
	return withReachHint(reachCLI(ctx, base))
}

// withReachHint adds what a person at the command line can do about an app that is down.
func withReachHint(err error) error {
	var down *gardener.UnreachableError
	if errors.As(err, &down) {
		return fmt.Errorf("%w; start it, or check --base-url", err)
	}
	return err
}
