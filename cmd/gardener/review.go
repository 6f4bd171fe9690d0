package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/radar"
)

// The review commands are the console's queue and test history on the command line, on the
// local state (through the application layer) or, with --api, through the HTTP API: the same use
// cases, the same refusals in the same words.
func init() {
	register("queue", command{
		summary:  "list a project's staged repairs (or why there are none)",
		synopsis: []string{"[--project P] [--state DIR | --api URL] [--json]"},
		about: `Lists the open proposals of project P's review queue, as the console's App radar page shows
them: the test, how long the fix has been staged and how often a later sweep restated it, the
failing step, why a person must look, the app changes that triggered it, the proposed step
changes (typed values redacted), the change classes, the requirement contract and the checks
proven sensitive; approve one with "gardener approve ID", decline it with "gardener dismiss ID".
An empty queue says which of the console's reasons applies. P defaults to local, the project of
test files that name none. With --json, the queue as GET /projects/{projectId}/queue answers it.

Exit status: 0 listed (empty or not); 2 bad input (no such project); 3 the state or the API could
not be reached.`,
		run: runQueue,
	})
	register("approve", command{
		summary:  "approve and apply a staged proposal (local state or --api)",
		synopsis: []string{"PROPOSAL [--propagate [--base-url URL] [--step-timeout D]] [--state DIR | --api URL] [--by WHO] [--json]"},
		about: `Applies an open proposal (one "gardener repair --mode propose" staged, or one "gardener queue"
lists) to its test and records who approved it, as the console's and the API's Approve do. A
proposal computed on a version the test has moved past is refused and marked stale. Write the
repaired test back to its file with "gardener pull". With --api the token's caller is recorded
as the approver.

When the fix healed a locator other active tests of the project use, the answer names them
with the steps that use it and leaves them as they are. With --propagate the heal is carried
to them in the same approval, as auto-repair's propagation does: each is replayed with it in
headless Chromium (against --base-url, default the project's first allowed origin; with --api
in the API's browser) and judged against its own last green run, then written when green and
nothing in it needs a person, staged for a person otherwise, or left as it is when it does not
replay green; each line says which and why.

Exit status: 0 applied; 1 refused (stale, no longer open); 2 bad input (no such proposal, a token
the API refuses); 3 the state or the API could not be reached.`,
		run: func(ctx context.Context, c *cli, args []string) int { return runDecide(ctx, c, "approve", args) },
	})
	register("dismiss", command{
		summary:  "dismiss a staged proposal (local state or --api)",
		synopsis: []string{"PROPOSAL [--state DIR | --api URL] [--by WHO] [--json]"},
		about: `Declines an open proposal, as the console's and the API's Dismiss do: it is not proposed again
unless the test or the app changes.

Exit status: 0 dismissed; 1 refused (no longer open); 2 bad input (no such proposal, a token the
API refuses); 3 the state or the API could not be reached.`,
		run: func(ctx context.Context, c *cli, args []string) int { return runDecide(ctx, c, "dismiss", args) },
	})
	register("revert", command{
		summary:  "revert a repair: its test gets its pre-repair steps back (local state or --api)",
		synopsis: []string{"REPAIR [--yes] [--state DIR | --api URL] [--by WHO] [--json]"},
		about: `Writes the steps a repair replaced back to its test, as a new version, as the console's Revert
does. It first prints the console's confirmation, which is honest about the consequence (the
selector the repair fixed fails again, or the step it added is gone again), and reverts only when the answer on stdin is yes; --yes
answers it. A repair already reverted, or one the test has moved past (an edit, another repair),
is refused: reverting it would throw those changes away.

Exit status: 0 reverted; 1 refused, or not confirmed; 2 bad input (no such repair, no answer on
stdin and no --yes, a token the API refuses); 3 the state or the API could not be reached.`,
		run: runRevert,
	})
	register("history", command{
		summary:  "a test's repairs, triage issues and model calls (local state or --api)",
		synopsis: []string{"TEST [--state DIR | --api URL] [--json]"},
		about: `Prints a test's history as the console's test page shows it: its version and status, a repair
staged for it, every repair written to it (when, from which run, by whom, the change classes,
the contract, the diff with typed values redacted, and whether it can be reverted, with the
command), its triage issues (the run, the evidence, what the ladder tried) and its AI history
(every model call). TEST is the test's id. With --json, one object with the same records as the
API gives them.

Exit status: 0 printed; 2 bad input (no such test, a token the API refuses); 3 the state or the
API could not be reached.`,
		run: runHistory,
	})
}

// reviewFlags are the flags the review commands share.
type reviewFlags struct {
	apiFlags
	by   string
	json bool
}

func (f *reviewFlags) register(fs *flag.FlagSet, decides bool) {
	f.apiFlags.register(fs)
	if decides {
		fs.StringVar(&f.by, "by", "", "who decides, recorded on the record (local state only; with --api the token's caller); default cli:$USER")
	}
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
}

// open is the review the flags name; its error is a mistake on the command line.
func (f *reviewFlags) open() (review, error) {
	api, err := f.client()
	if err != nil {
		return nil, err
	}
	if api != nil {
		if f.by != "" {
			return nil, errors.New("--by is for the local state: through --api the API records the token's caller")
		}
		return apiReview{api}, nil
	}
	return openLocalReview(f.state, cmp.Or(f.by, localUser()))
}

// review is where the review commands find the queue, the records and the actions: the local
// state or an API.
type review interface {
	queue(ctx context.Context, projectID string) (radar.Queue, error)
	approve(ctx context.Context, proposalID string, opt gardening.ApproveOptions) (gardening.Approval, error)
	dismiss(ctx context.Context, proposalID string) (gardener.Proposal, error)
	test(ctx context.Context, testID string) (gardener.Test, error)
	repair(ctx context.Context, repairID string) (gardener.Repair, error)
	revertConfirmation(ctx context.Context, repairID string) (string, error)
	revert(ctx context.Context, repairID string) (lifecycle.Reverted, error)
	history(ctx context.Context, testID string) (lifecycle.History, error)
	triage(ctx context.Context, projectID string) ([]gardener.TriageIssue, error)
	runs(ctx context.Context, testID, after string, limit int) (gardening.RunsPage, error)
	close()
}

// localReview is the local state, through the application layer, acting for who.
type localReview struct {
	store *embedded.Store
	app   *gardening.Service
	who   gardening.Who
}

// openLocalReview opens the state in dir; a state that does not exist yet is an error rather
// than an empty state made on the way: there is nothing to review in it.
func openLocalReview(dir, by string) (review, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, &localStateError{dir: dir, err: err}
	}
	store, err := openState(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the state in %s: %w", dir, err)
	}
	app, err := gardening.New(gardening.Deps{Store: store, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		store.Close()
		return nil, err
	}
	return &localReview{store: store, app: app, who: gardening.Person(by)}, nil
}

// localStateError is a --state that is not there: bad input, since no command made a state there.
type localStateError struct {
	dir string
	err error
}

func (e *localStateError) Error() string {
	return fmt.Sprintf("no local state in %s (%v): run the commands that make one (run --record, repair, push, sweep) there, or give --state or --api", e.dir, e.err)
}

func (l *localReview) queue(ctx context.Context, p string) (radar.Queue, error) {
	return l.app.Queue(ctx, p)
}
func (l *localReview) approve(ctx context.Context, id string, opt gardening.ApproveOptions) (gardening.Approval, error) {
	return l.app.Approve(ctx, l.who, id, opt)
}
func (l *localReview) dismiss(ctx context.Context, id string) (gardener.Proposal, error) {
	return l.app.Dismiss(ctx, l.who, id)
}
func (l *localReview) test(ctx context.Context, id string) (gardener.Test, error) {
	return l.store.Test(ctx, id)
}
func (l *localReview) repair(ctx context.Context, id string) (gardener.Repair, error) {
	return l.app.Repair(ctx, id)
}
func (l *localReview) revertConfirmation(ctx context.Context, id string) (string, error) {
	return l.app.RevertConfirmation(ctx, id)
}
func (l *localReview) revert(ctx context.Context, id string) (lifecycle.Reverted, error) {
	return l.app.Revert(ctx, l.who, id)
}
func (l *localReview) history(ctx context.Context, id string) (lifecycle.History, error) {
	return l.app.History(ctx, id)
}
func (l *localReview) triage(ctx context.Context, p string) ([]gardener.TriageIssue, error) {
	return l.app.TriageIssues(ctx, p)
}
func (l *localReview) runs(ctx context.Context, id, after string, limit int) (gardening.RunsPage, error) {
	return l.app.Runs(ctx, id, after, limit)
}
func (l *localReview) close() { l.store.Close() }

// apiReview is an API: each call is the route the console's page and forms call.
type apiReview struct{ *apiClient }

func (a apiReview) queue(ctx context.Context, p string) (radar.Queue, error) {
	var q radar.Queue
	return q, a.do(ctx, "GET", "/projects/"+url.PathEscape(p)+"/queue", nil, &q)
}

// approve asks the API to approve; with propagation the API replays the other tests in its own
// browser (a Lambda API has none and refuses, before writing anything).
func (a apiReview) approve(ctx context.Context, id string, opt gardening.ApproveOptions) (gardening.Approval, error) {
	var out gardening.Approval
	var body any
	if opt.Propagate {
		body = map[string]any{"propagate": true}
	}
	return out, a.do(ctx, "POST", "/proposals/"+url.PathEscape(id)+"/approve", body, &out)
}
func (a apiReview) dismiss(ctx context.Context, id string) (gardener.Proposal, error) {
	var out gardener.Proposal
	return out, a.do(ctx, "POST", "/proposals/"+url.PathEscape(id)+"/dismiss", nil, &out)
}
func (a apiReview) test(ctx context.Context, id string) (gardener.Test, error) {
	var out gardener.Test
	return out, a.do(ctx, "GET", "/tests/"+url.PathEscape(id), nil, &out)
}
func (a apiReview) repair(ctx context.Context, id string) (gardener.Repair, error) {
	var out gardener.Repair
	return out, a.do(ctx, "GET", "/repairs/"+url.PathEscape(id), nil, &out)
}
func (a apiReview) revertConfirmation(ctx context.Context, id string) (string, error) {
	var out struct {
		Confirmation string `json:"confirmation"`
	}
	return out.Confirmation, a.do(ctx, "POST", "/repairs/"+url.PathEscape(id)+"/revert", map[string]any{}, &out)
}
func (a apiReview) revert(ctx context.Context, id string) (lifecycle.Reverted, error) {
	var out lifecycle.Reverted
	return out, a.do(ctx, "POST", "/repairs/"+url.PathEscape(id)+"/revert", map[string]any{"confirm": true}, &out)
}
func (a apiReview) history(ctx context.Context, id string) (lifecycle.History, error) {
	var out lifecycle.History
	return out, a.do(ctx, "GET", "/tests/"+url.PathEscape(id)+"/history", nil, &out)
}
func (a apiReview) triage(ctx context.Context, p string) ([]gardener.TriageIssue, error) {
	var out []gardener.TriageIssue
	return out, a.do(ctx, "GET", "/projects/"+url.PathEscape(p)+"/triage", nil, &out)
}
func (a apiReview) runs(ctx context.Context, id, after string, limit int) (gardening.RunsPage, error) {
	var out gardening.RunsPage
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := "/tests/" + url.PathEscape(id) + "/runs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return out, a.do(ctx, "GET", path, nil, &out)
}
func (a apiReview) close() {}

// idArg is an id a command is given, checked by the id rule before the state or the API is
// asked: name is the argument as the synopsis writes it (PROPOSAL) or its flag (--project), kind
// the API's field for such an id (proposalId), which decides the rule's bound.
type idArg struct{ name, kind string }

// checkIDArgs checks a command's id arguments (gardening.CheckIDAs, the rule every door asks):
// the positional one in pos[0], the flags' in fs. The error names the argument.
func checkIDArgs(fs *flag.FlagSet, pos []string, ids []idArg) error {
	for _, a := range ids {
		var id string
		if name, isFlag := strings.CutPrefix(a.name, "--"); isFlag {
			id = fs.Lookup(name).Value.String()
		} else if len(pos) > 0 {
			id = pos[0]
		}
		if err := gardening.CheckIDAs(a.name, a.kind, id); err != nil {
			return err
		}
	}
	return nil
}

// openReview parses a review command's line, checks its ids and opens its review; ok false
// means return code. want names the one positional argument (none when empty); ids are the
// arguments holding an id.
func (c *cli) openReview(fs *flag.FlagSet, f *reviewFlags, args []string, want string, ids ...idArg) (r review, pos []string, code int, ok bool) {
	pos, code, ok = c.parse(fs, args)
	if !ok {
		return nil, nil, code, false
	}
	if want != "" && len(pos) != 1 {
		return nil, nil, c.badUsage(fs, "give one %s (got %s)", want, plural(len(pos), "argument", "arguments")), false
	}
	if want == "" && len(pos) > 0 {
		return nil, nil, c.badUsage(fs, "unexpected argument %q", pos[0]), false
	}
	if err := checkIDArgs(fs, pos, ids); err != nil {
		return nil, nil, c.badUsage(fs, "%v", err), false
	}
	r, err := f.open()
	var missing *localStateError
	switch {
	case errors.As(err, &missing):
		return nil, nil, c.fail(fs.Name(), exitBadInput, err), false
	case err != nil && f.api != "":
		return nil, nil, c.badUsage(fs, "%v", err), false
	case err != nil:
		return nil, nil, c.fail(fs.Name(), exitFailure, err), false
	}
	return r, pos, exitOK, true
}

// listed keeps what a listing read when some stored records do not decode: they are named on
// stderr and the rest is shown, as the API's listings do; any other error is returned.
func (c *cli) listed(name string, err error) error {
	corrupt, failure := gardener.SplitCorrupt(err)
	if corrupt != nil {
		for _, r := range corrupt.Records {
			fmt.Fprintf(c.stderr, "gardener %s: left out, does not decode: %s %q: %v\n", name, r.Entity, r.ID, r.Err)
		}
	}
	return failure
}

// done prints out as JSON, or line as text, and returns 0.
func (c *cli) done(name string, asJSON bool, out any, line string) int {
	if asJSON {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.fail(name, exitFailure, err)
		}
		return exitOK
	}
	fmt.Fprint(c.stdout, line)
	return exitOK
}

func runQueue(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("queue")
	var f reviewFlags
	f.register(fs, false)
	project := fs.String("project", localProject, "the project's `ID`")
	r, _, code, ok := c.openReview(fs, &f, args, "", idArg{"--project", "projectId"})
	if !ok {
		return code
	}
	defer r.close()
	q, err := r.queue(ctx, *project)
	if err = c.listed("queue", err); err != nil {
		if code := exitOf(err); code == exitBadInput && *project == localProject {
			return c.fail("queue", code, fmt.Errorf("%w (project %s holds the tests whose files name no project; give --project P for another)", err, localProject))
		}
		return c.fail("queue", exitOf(err), err)
	}
	var b strings.Builder
	printQueue(&b, q)
	return c.done("queue", f.json, q, b.String())
}

// printQueue writes a project's staged repairs as the console's queue shows them, or the reason
// the queue is empty.
func printQueue(w io.Writer, q radar.Queue) {
	if len(q.Rows) == 0 {
		fmt.Fprintf(w, "Staged repairs of %s: none. %s. %s\n", q.ProjectID, q.Empty, q.Explain)
	} else {
		fmt.Fprintf(w, "Staged repairs of %s: %d\n", q.ProjectID, len(q.Rows))
	}
	for _, r := range q.Rows {
		name := r.TestID
		if r.TestName != "" {
			name = fmt.Sprintf("%s (%s)", r.TestID, r.TestName)
		}
		fmt.Fprintf(w, "\n%s  %s, version %d\n", r.ProposalID, name, r.BaseVersion)
		fmt.Fprintf(w, "  staged %s ago (since %s), restated by %s\n", r.StagedFor, r.StagedAt.UTC().Format(timeLayout), plural(r.Restated, "later sweep", "later sweeps"))
		if r.FailedStep != "" || r.Error != "" {
			fmt.Fprintf(w, "  failing step %s: %s\n", r.FailedStep, r.Error)
		}
		if r.Reason != "" {
			fmt.Fprintf(w, "  %s\n", r.Reason)
		}
		if r.Stale != "" {
			fmt.Fprintf(w, "  stale: %s\n", r.Stale)
		}
		// What put the row here when no app change did is the domain's words (the console's
		// and the API's origin): a chat edit is no failed run.
		if len(r.Triggers) == 0 && r.Origin != "" {
			fmt.Fprintf(w, "  triggered by: %s\n", r.Origin)
		}
		for _, t := range r.Triggers {
			line := fmt.Sprintf("  triggered by %s on %s", t.Kind, t.URL)
			if t.Detail != "" {
				line += ": " + t.Detail
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintf(w, "  fix (%s): %s\n", r.Strategy, classCounts(r.Classes))
		for _, l := range diffLines(r.Diff) {
			fmt.Fprintf(w, "    %s\n", l)
		}
		printProof(w, "  ", r.Contract, nil, r.Notes)
		if len(r.Withheld) > 0 {
			fmt.Fprintln(w, "  asked for and withheld (the assertion floor: a person makes these in the step editor, if at all):")
			for _, h := range r.Withheld {
				fmt.Fprintf(w, "    step %s (%s): %s\n", h.Path, h.Kind, h.Reason)
			}
		}
		if len(r.Confirm) > 0 && r.Stale == "" {
			fmt.Fprintln(w, "  confirm before approving (the console asks for it):")
			for _, c := range r.Confirm {
				fmt.Fprintf(w, "    %s\n", c)
			}
		}
		if r.Stale == "" {
			fmt.Fprintf(w, "  gardener approve %s  |  gardener dismiss %s\n", r.ProposalID, r.ProposalID)
		} else {
			fmt.Fprintf(w, "  gardener dismiss %s\n", r.ProposalID)
		}
	}
	if len(q.AtRisk) > 0 {
		ids := make([]string, len(q.AtRisk))
		for i, a := range q.AtRisk {
			ids[i] = a.TestID
		}
		fmt.Fprintf(w, "\nAt risk since the last sweep: %s\n", strings.Join(ids, ", "))
	}
}

// timeLayout is how the review commands write a time, as the console does: UTC, said so.
const timeLayout = "2006-01-02 15:04 UTC"

// classCounts is "1 repair, 1 review" in rising order of concern, "no change classified" when
// none was.
func classCounts(counts map[gardener.ChangeClass]int) string {
	var parts []string
	for _, c := range []gardener.ChangeClass{gardener.ClassRepair, gardener.ClassReview, gardener.ClassProtected} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	if len(parts) == 0 {
		return "no change classified"
	}
	return strings.Join(parts, ", ")
}

func diffLines(d []gardener.DiffEntry) []string {
	var out []string
	for _, e := range d {
		out = append(out, e.Lines()...)
	}
	return out
}

// printProof writes what a proof found beside its diff: the requirement contract (when it has
// requirements), the checks proven sensitive (when known) and the notes.
func printProof(w io.Writer, indent string, contract gardener.Contract, sens *gardener.Sensitivity, notes []gardener.Note) {
	if k, n := contract.Kept(); n > 0 {
		fmt.Fprintf(w, "%srequirement contract: %d of %d kept\n", indent, k, n)
	}
	if sens != nil && sens.Total > 0 {
		fmt.Fprintf(w, "%schecks proven sensitive: %d of %d\n", indent, sens.Sensitive, sens.Total)
	}
	for _, n := range notes {
		if n.Kind == gardener.NotePageAtFailure {
			continue
		}
		fmt.Fprintf(w, "%snote: %s\n", indent, n.Text)
	}
}

// runDecide approves or dismisses one proposal.
func runDecide(ctx context.Context, c *cli, verb string, args []string) int {
	fs := c.flags(verb)
	var f reviewFlags
	f.register(fs, true)
	var propagate bool
	var baseURL string
	var stepTimeout time.Duration
	if verb == "approve" {
		fs.BoolVar(&propagate, "propagate", false, "also carry the healed locator to the project's other tests that use it, each replayed with it and written only if green and nothing in it needs a person")
		fs.StringVar(&baseURL, "base-url", "", "with --propagate and the local state, the app's `URL` to replay against (default: the project's first allowed origin)")
		stepTimeoutVar(fs, &stepTimeout, 0, "with --propagate and the local state, the "+stepTimeoutUsage)
	}
	r, pos, code, ok := c.openReview(fs, &f, args, "proposal id", idArg{"PROPOSAL", "proposalId"})
	if !ok {
		return code
	}
	defer r.close()
	switch verb {
	case "approve":
		if f.api != "" && (baseURL != "" || stepTimeout != 0) {
			return c.badUsage(fs, "--base-url and --step-timeout are for the local state: through --api the API replays with its own")
		}
		opt := gardening.ApproveOptions{Propagate: propagate}
		if propagate && f.api == "" {
			runner, closeRunner := c.browserFor(stepTimeout)
			defer closeRunner()
			opt.Here = gardening.Here{Runner: runner, Options: gardener.ReplayOptions{BaseURL: baseURL},
				Progress: func(e ladder.Event) { fmt.Fprintln(c.stderr, e.Line()) }}
		}
		a, err := r.approve(ctx, pos[0], opt)
		if err != nil {
			return c.fail(verb, exitOf(err), err)
		}
		text := fmt.Sprintf("approved %s: %s is now version %d (repair %s, approved by %s); gardener pull writes it to your test file\n",
			pos[0], a.Test.ID, a.Test.Version, a.Repair.ID, a.Repair.ApprovedBy)
		if said := a.PropagatedSaid(); len(said) > 0 {
			text += "the healed locator, carried to the other tests that use it:\n  " + strings.Join(said, "\n  ") + "\n"
		} else if said := a.OthersSaid(); len(said) > 0 {
			text += fmt.Sprintf("%s the locator it healed, left as before: each fails on the same change until its own repair (approve --propagate carries a heal to them in the approval itself):\n  %s\n",
				plural(len(said), "other test uses", "other tests use"), strings.Join(said, "\n  "))
		}
		return c.done(verb, f.json, a, text)
	default:
		p, err := r.dismiss(ctx, pos[0])
		if err != nil {
			return c.fail(verb, exitOf(err), err)
		}
		return c.done(verb, f.json, p, fmt.Sprintf("dismissed %s of %s: it is not proposed again unless the test or the app changes\n", p.ID, p.TestID))
	}
}

func runRevert(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("revert")
	var f reviewFlags
	f.register(fs, true)
	yes := fs.Bool("yes", false, "revert without asking (the confirmation is still printed)")
	r, pos, code, ok := c.openReview(fs, &f, args, "repair id", idArg{"REPAIR", "repairId"})
	if !ok {
		return code
	}
	defer r.close()
	id := pos[0]
	// Asked only of a revert that can happen: the confirmation refuses one that cannot (reverted
	// already, a test moved past it), in the words the API and the console give.
	confirm, err := r.revertConfirmation(ctx, id)
	if err != nil {
		return c.fail("revert", exitOf(err), err)
	}
	fmt.Fprintln(c.stderr, confirm)
	if !*yes {
		fmt.Fprint(c.stderr, "Revert? [y/N] ")
		answer, err := bufio.NewReader(c.stdin).ReadString('\n')
		answer = strings.ToLower(strings.TrimSpace(answer))
		switch {
		case answer == "" && err != nil:
			fmt.Fprintln(c.stderr)
			return c.fail("revert", exitBadInput, errors.New("no answer on stdin: nothing reverted (give --yes to revert without asking)"))
		case answer != "y" && answer != "yes":
			fmt.Fprintln(c.stderr, "not reverted")
			return exitNegative
		}
	}
	v, err := r.revert(ctx, id)
	if err != nil {
		return c.fail("revert", exitOf(err), err)
	}
	return c.done("revert", f.json, v, fmt.Sprintf("reverted %s: %s is version %d with its %s from before the repair\n",
		v.Repair.ID, v.Test.ID, v.Test.Version, plural(len(v.Test.Steps), "step", "steps")))
}

// testHistory is what history --json prints: the records the API gives for the test, each
// repair with whether it can be reverted.
type testHistory struct {
	Test       testSummary            `json:"test"`
	Staged     *radar.QueueRow        `json:"staged,omitempty"`
	Repairs    []historyRepair        `json:"repairs"`
	Triage     []gardener.TriageIssue `json:"triage"`
	ModelCalls []gardener.ModelCall   `json:"modelCalls"`
}

// testSummary is a test without its steps: what it is, not what it types.
type testSummary struct {
	ID        string              `json:"id"`
	ProjectID string              `json:"project"`
	Name      string              `json:"name"`
	Status    gardener.TestStatus `json:"status"`
	Version   int                 `json:"version"`
	Steps     int                 `json:"steps"`
}

// historyRepair is a repair record and whether it can be reverted: the command's confirmation
// when it can, why not (gardener.Repair.RevertRefusal) when it cannot.
type historyRepair struct {
	gardener.Repair
	Revertable    bool   `json:"revertable"`
	NotRevertable string `json:"notRevertable,omitempty"`
	Confirmation  string `json:"confirmation,omitempty"`
}

func runHistory(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("history")
	var f reviewFlags
	f.register(fs, false)
	r, pos, code, ok := c.openReview(fs, &f, args, "test id", idArg{"TEST", "testId"})
	if !ok {
		return code
	}
	defer r.close()
	h, err := readHistory(ctx, c, r, pos[0])
	if err != nil {
		return c.fail("history", exitOf(err), err)
	}
	var b strings.Builder
	printHistory(&b, h)
	return c.done("history", f.json, h, b.String())
}

// readHistory gathers a test's history from the use cases the console's test page reads.
func readHistory(ctx context.Context, c *cli, r review, testID string) (testHistory, error) {
	t, err := r.test(ctx, testID)
	if err != nil {
		return testHistory{}, err
	}
	h := testHistory{Test: testSummary{ID: t.ID, ProjectID: t.ProjectID, Name: t.Name, Status: t.Status, Version: t.Version, Steps: len(t.Steps)},
		Repairs: []historyRepair{}, Triage: []gardener.TriageIssue{}}
	ai, err := r.history(ctx, testID)
	if err = c.listed("history", err); err != nil {
		return h, err
	}
	h.ModelCalls = ai.ModelCalls
	for _, rep := range ai.Repairs {
		hr := historyRepair{Repair: rep, NotRevertable: rep.RevertRefusal(t.Version)}
		if hr.NotRevertable == "" {
			hr.Revertable = true
			hr.Confirmation, err = r.revertConfirmation(ctx, rep.ID)
			if err != nil && exitOf(err) == exitNegative {
				// Reverted, or the test moved past it, since the test was read: not
				// revertable, for the reason a revert would be refused with.
				hr.Revertable, hr.NotRevertable, err = false, err.Error(), nil
			}
			if err != nil {
				return h, err
			}
		}
		h.Repairs = append(h.Repairs, hr)
	}
	issues, err := r.triage(ctx, t.ProjectID)
	if err = c.listed("history", err); err != nil {
		return h, err
	}
	for _, is := range issues {
		if is.TestID == testID {
			h.Triage = append(h.Triage, is)
		}
	}
	q, err := r.queue(ctx, t.ProjectID)
	if err = c.listed("history", err); err != nil {
		return h, err
	}
	for i := range q.Rows {
		if q.Rows[i].TestID == testID {
			h.Staged = &q.Rows[i]
		}
	}
	return h, nil
}

func printHistory(w io.Writer, h testHistory) {
	t := h.Test
	name := t.ID
	if t.Name != "" {
		name = fmt.Sprintf("%s (%s)", t.ID, t.Name)
	}
	fmt.Fprintf(w, "Test %s of project %s: version %d, %s, %s\n", name, t.ProjectID, t.Version, t.Status, plural(t.Steps, "step", "steps"))
	if s := h.Staged; s != nil {
		fmt.Fprintf(w, "A repair is staged for this test: proposal %s (gardener queue --project %s shows it)\n", s.ProposalID, t.ProjectID)
	}
	fmt.Fprintf(w, "\nRepair history: %s\n", plural(len(h.Repairs), "repair", "repairs"))
	if len(h.Repairs) == 0 {
		fmt.Fprintln(w, "  No repair was ever written to this test.")
	}
	for _, r := range h.Repairs {
		badge := ""
		if r.Badge && r.RevertedAt.IsZero() {
			badge = "  [Auto-repaired: not reviewed yet]"
		}
		fmt.Fprintf(w, "\n  repair %s  version %d -> %d%s\n", r.ID, r.FromVersion, r.ToVersion, badge)
		fmt.Fprintf(w, "    when: %s\n", r.At.UTC().Format(timeLayout))
		fmt.Fprintf(w, "    run: %s\n", cmp.Or(r.RunID, "none recorded (a sweep's dry run or an edit)"))
		switch {
		case r.Auto:
			fmt.Fprintln(w, "    by: auto-repair")
		case r.ApprovedBy != "":
			fmt.Fprintf(w, "    by: approved by %s\n", r.ApprovedBy)
		default:
			fmt.Fprintln(w, "    by: not recorded")
		}
		if r.ReviewedBy != "" {
			fmt.Fprintf(w, "    reviewed by %s\n", r.ReviewedBy)
		}
		v := r.Verdict
		fmt.Fprintf(w, "    fix (%s): %s\n", v.Strategy, classCounts(gardener.Summarize(v.Changes)))
		for _, l := range diffLines(gardener.Diff(r.PreSteps, v.Ops)) {
			fmt.Fprintf(w, "      %s\n", l)
		}
		printProof(w, "    ", v.Contract.Redacted(), &v.Sensitivity, v.Notes)
		if r.Revertable {
			fmt.Fprintf(w, "    revertable: gardener revert %s\n      it asks: %s\n", r.ID, r.Confirmation)
		} else {
			fmt.Fprintf(w, "    %s\n", r.NotRevertable)
		}
	}
	fmt.Fprintf(w, "\nTriage issues: %d\n", len(h.Triage))
	if len(h.Triage) == 0 {
		fmt.Fprintln(w, "  No triage issue for this test.")
	}
	for _, is := range h.Triage {
		fmt.Fprintf(w, "\n  %s at step %s (%s), issue %s\n", is.Classification, is.FailedStep, is.At.UTC().Format(timeLayout), is.ID)
		fmt.Fprintf(w, "    %s\n", is.Error)
		if is.RunID != "" {
			fmt.Fprintf(w, "    run: %s\n", is.RunID)
		}
		for _, e := range is.Evidence {
			fmt.Fprintf(w, "    evidence: %s\n", e)
		}
		for _, a := range is.Attempts {
			fmt.Fprintf(w, "    %s: %s\n", a.Rung, a.Outcome)
			for _, rf := range a.Refusals {
				fmt.Fprintf(w, "      %s\n", rf.String())
			}
		}
	}
	fmt.Fprintf(w, "\nAI history: %s for this test, beside its %s\n", plural(len(h.ModelCalls), "model call", "model calls"), plural(len(h.Repairs), "repair", "repairs"))
	for _, m := range h.ModelCalls {
		fmt.Fprintf(w, "  %s  %s  %s  %d in / %d out  %s\n", m.At.UTC().Format(timeLayout), m.Ask, m.Model, m.InputTokens, m.OutputTokens, m.Outcome)
	}
}

// localUser is who a command acts for when it is not told: the person at this machine.
func localUser() string { return "cli:" + cmp.Or(os.Getenv("USER"), "local") }

// localProject is the project of a test file that names none: the commands on one machine keep
// such tests, and their runs and repairs, in this project of the local state.
const localProject = "local"

// exitOf is the exit status of an error of the application layer or of an API: the CLI's
// answer to the class every door maps alike.
func exitOf(err error) int {
	var token *tokenRefusedError
	var answered *apiStatusError
	var stale *staleFileError
	switch {
	case errors.As(err, &token):
		return exitBadInput
	case errors.As(err, &stale):
		return exitNegative
	case errors.As(err, &answered):
		return answered.exit()
	}
	switch gardening.ClassOf(err) {
	case gardening.ClassBadInput, gardening.ClassNotFound:
		return exitBadInput
	case gardening.ClassConflict, gardening.ClassRefused, gardening.ClassUnproven, gardening.ClassMoved:
		return exitNegative
	}
	// ClassUnreachable is a failure of the network (the app under test was not there): 3.
	return exitFailure
}
