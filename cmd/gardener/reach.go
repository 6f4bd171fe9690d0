package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// reachCLI is the probe the CLI's application layer asks before it replays (gardening.Deps.Reach):
// the one every door's service is built with. The long-running doors (serve, mcp) ask it on
// every request; a one-shot command asks reachOnce's.
var reachCLI = browser.Reach

// reachOnce is reach for one command that checks its app before anything (reachApp) and then
// replays test after test: a base URL that answered is not asked again (run --record of a folder
// asked once a test). An app that goes down midway fails the later replays on the network, which
// every command reports as not judged. Never for serve or mcp, which live on across outages.
func reachOnce(reach func(context.Context, string) error) func(context.Context, string) error {
	var mu sync.Mutex
	answered := map[string]bool{}
	return func(ctx context.Context, base string) error {
		mu.Lock()
		seen := answered[base]
		mu.Unlock()
		if seen {
			return nil
		}
		err := reach(ctx, base)
		if err == nil {
			mu.Lock()
			answered[base] = true
			mu.Unlock()
		}
		return err
	}
}

// reachApp asks, before a command writes anything of its own (a test file synced into the state,
// a project created), the same question the application layer asks before it replays: is the app
// at base there? An app that is not is a *gardener.UnreachableError (exit 3), named with what to do.
func reachApp(ctx context.Context, reach func(context.Context, string) error, base string) error {
	return withReachHint(reach(ctx, base))
}

// withReachHint adds what a person at the command line can do about an app that is down.
func withReachHint(err error) error {
	var down *gardener.UnreachableError
	if errors.As(err, &down) {
		return fmt.Errorf("%w; start it, or check --base-url", err)
	}
	return err
}
