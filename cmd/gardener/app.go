package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/driftgardener/gardener/tests/demoapp"
)

func init() {
	register("app", command{
		summary: "serve the demo shop in a variant (baseline, drift, regression), or list the variants",
		run: func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runApp(ctx, args, stdout, stderr)
		},
	})
}

// runApp serves the demo app until ctx ends. The first line on stdout is the URL it serves on,
// so a script can start it on port 0 and read where it landed.
func runApp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("app", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", demoapp.BaselineName, "serve variant `NAME` (see --list)")
	listen := fs.String("listen", "127.0.0.1:0", "listen on `ADDR`; port 0 picks a free port")
	list := fs.Bool("list", false, "list every variant, its kind, what a correct repair is and which saved tests it breaks")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: gardener app [--variant NAME] [--listen ADDR]
       gardener app --list

Serves Seedling Supply, the demo shop, in the given variant and prints the URL on the first line
of stdout; serves until interrupted. The variant can be switched while it runs with
POST /__variant?name=NAME; GET /__record shows the clicks, fills and requests it saw.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gardener app: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *list {
		printVariants(stdout)
		return 0
	}
	app := demoapp.New()
	if err := app.SetVariant(*variant); err != nil {
		fmt.Fprintf(stderr, "gardener app: %v\n\n", err)
		printVariants(stderr)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "gardener app: listening on %q: %v\n", *listen, err)
		return 2
	}
	srv := &http.Server{Handler: app.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	fmt.Fprintf(stderr, "gardener app: serving variant %s; interrupt to stop\n", *variant)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "gardener app: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "gardener app: stopping: %v\n", err)
		return 1
	}
	return 0
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
			ids := make([]string, 0, len(v.Breaks))
			for id := range v.Breaks {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for i, id := range ids {
				ids[i] = id + " at step " + v.Breaks[id]
			}
			breaks = strings.Join(ids, ", ")
		}
		fmt.Fprintf(tw, "\tbreaks:\t%s\n", breaks)
	}
	tw.Flush()
}
