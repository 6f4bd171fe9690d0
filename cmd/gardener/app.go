package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/driftgardener/gardener/tests/demoapp"
)

func init() {
	register("app", command{
		summary:  "serve the demo shop in a variant (baseline, drift, regression), or list the variants",
		synopsis: []string{"[--variant NAME] [--listen ADDR]", "--list [--json]"},
		about: `Serves Seedling Supply, the demo shop, in the given variant and prints the URL on the first line
of stdout; serves until interrupted. The variant can be switched while it runs with
POST /__variant?name=NAME; GET /__record shows the clicks, fills and requests it saw.
Exit status: 0 stopped by an interrupt, or listed; 2 bad input; 3 serving failed.`,
		run: runApp,
	})
}

// runApp serves the demo app until ctx ends. The first line on stdout is the URL it serves on,
// so a script can start it on port 0 and read where it landed.
func runApp(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("app")
	variant := fs.String("variant", demoapp.BaselineName, "serve variant `NAME` (see --list)")
	listen := fs.String("listen", "127.0.0.1:0", "listen on `ADDR`; port 0 picks a free port")
	list := fs.Bool("list", false, "list every variant, its kind, what a correct repair is and which saved tests it breaks")
	asJSON := fs.Bool("json", false, "with --list, print the variants as one JSON array")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	if *list && *asJSON {
		if err := writeJSON(c.stdout, demoapp.Variants()); err != nil {
			return c.fail("app", exitFailure, err)
		}
		return exitOK
	}
	if *list {
		printVariants(c.stdout)
		return exitOK
	}
	if *asJSON {
		return c.badUsage(fs, "--json goes with --list")
	}
	app := demoapp.New()
	if err := app.SetVariant(*variant); err != nil {
		fmt.Fprintf(c.stderr, "gardener app: %v\n\n", err)
		printVariants(c.stderr)
		return exitBadInput
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return c.fail("app", exitBadInput, fmt.Errorf("listening on %q: %w", *listen, err))
	}
	srv := &http.Server{Handler: app.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(c.stdout, "http://%s/\n", ln.Addr())
	fmt.Fprintf(c.stderr, "gardener app: serving variant %s; interrupt to stop\n", *variant)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return c.fail("app", exitFailure, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return c.fail("app", exitFailure, fmt.Errorf("stopping: %w", err))
	}
	return exitOK
}

// printVariants writes one block a variant: name and kind, what it changes, the correct repair
// and the saved tests it breaks at which step.
func printVariants(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range demoapp.Variants() {
		fmt.Fprintf(tw, "%s\t%s\n", v.Name, v.Kind)
		fmt.Fprintf(tw, "\tchange:\t%s\n", v.Description)
		fmt.Fprintf(tw, "\trepair:\t%s\n", v.CorrectRepair)
		breaks := "none"
		if len(v.Breaks) > 0 {
			ids := slices.Sorted(maps.Keys(v.Breaks))
			for i, id := range ids {
				ids[i] = id + " at step " + v.Breaks[id]
			}
			breaks = strings.Join(ids, ", ")
		}
		fmt.Fprintf(tw, "\tbreaks:\t%s\n", breaks)
	}
	tw.Flush()
}
