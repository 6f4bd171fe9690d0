// Command gardener is Drift Gardener on one machine: the demo, the local stack, and the single
// operations (run a test, repair it, locate elements, serve the demo app) that the Lambdas perform
// in AWS.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand. run receives the arguments after the subcommand name and returns
// the process exit code: 0 success, 1 a negative result (a failing test, say), 2 bad input.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by the init functions of the files beside this one, one file a subcommand,
// so that adding a subcommand never touches another's file.
var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("gardener: subcommand registered twice: " + name)
	}
	commands[name] = c
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gardener: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gardener COMMAND [flags]")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
}
