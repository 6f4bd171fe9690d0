package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

func init() {
	register("locate", command{
		summary:  "find recorded elements again on changed pages, offline (JSON lines in and out)",
		synopsis: []string{"[flags] < PAGES.jsonl"},
		about: `Reads one JSON object a line, {"app", "targets": [fingerprint...], "candidates": [fingerprint...]},
and writes one a line, {"app", "choices": [index or -1 per target], "scores": [confidence per target]}.
Input and output are JSON already; there is no text form. Blank lines are skipped. A malformed
line is reported on stderr with its line number and answered with an "error" field and empty
choices; the other lines are still answered. Exit status: 0 all lines answered; 2 a line was
malformed or the flags were wrong; 3 reading or writing failed.`,
		run: runLocate,
	})
}

// maxLocateLine bounds one input line. Real pages of 5,000 candidates take about 20 MB; the
// bound is generous above that and only keeps a runaway input from exhausting memory.
const maxLocateLine = 256 << 20

// locateIn is one input line: a recorded page's targets and a current page's candidates.
// Unknown fields are ignored and missing ones are empty.
type locateIn struct {
	App        string                 `json:"app"`
	Targets    []gardener.Fingerprint `json:"targets"`
	Candidates []gardener.Fingerprint `json:"candidates"`
}

// locateOut is one output line. Choices holds per target the chosen candidate's index or -1
// (abstained); Scores holds the best candidate's confidence in [0, 1], also when abstaining,
// so a caller can see how close it was. A line that could not be read gets Error and empty
// choices, so that output line n always answers input line n.
type locateOut struct {
	App     string    `json:"app"`
	Choices []int     `json:"choices"`
	Scores  []float64 `json:"scores"`
	Error   string    `json:"error,omitempty"`
}

func runLocate(_ context.Context, c *cli, args []string) int {
	fs := c.flags("locate")
	in := fs.String("in", "", "read JSON lines from `FILE` instead of stdin")
	threshold := fs.Float64("threshold", similo.ShippingThreshold,
		"confidence in [0, 1] a choice needs; 0 never abstains")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	if *threshold < 0 || *threshold > 1 || math.IsNaN(*threshold) {
		return c.badUsage(fs, "--threshold %v is not in [0, 1]", *threshold)
	}
	engine := similo.Engine{Threshold: *threshold}
	if *threshold == 0 {
		engine.Threshold = similo.NeverAbstain
	}

	src := c.stdin
	if *in != "" {
		// No size limit: each line is bounded, and a regular file ends.
		f, err := openInput(*in, "page file", 0)
		if err != nil {
			return c.fail("locate", exitBadInput, err)
		}
		defer f.Close()
		src = f
	}
	return locateLines(engine, bufio.NewReaderSize(src, 1<<20), c.stdout, c.stderr)
}

func locateLines(engine similo.Engine, r *bufio.Reader, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	status, werr := locateEach(engine, r, json.NewEncoder(w), stderr)
	// Flush also after a failure, so that the lines answered before it reach the caller. The
	// last lines sit in the buffer until here: a full disk or a closed pipe shows only now, and
	// must not leave the exit status 0 with output lost. A failed write leaves the writer's
	// error set, so an encode error already held is not reported twice.
	if err := w.Flush(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		fmt.Fprintf(stderr, "gardener locate: writing output: %v\n", werr)
		return exitFailure
	}
	return status
}

// locateEach answers r's lines one by one on enc. It returns the exit status so far and, when
// an answer could not be written, the write error, which stops it.
func locateEach(engine similo.Engine, r *bufio.Reader, enc *json.Encoder, stderr io.Writer) (int, error) {
	status := 0
	for n := 1; ; n++ {
		line, err := readLine(r, maxLocateLine)
		switch {
		case errors.Is(err, io.EOF):
			return status, nil
		case err != nil && !errors.Is(err, errLineTooLong):
			fmt.Fprintf(stderr, "gardener locate: reading line %d: %v\n", n, err)
			return exitFailure, nil
		case err == nil && len(bytes.TrimSpace(line)) == 0:
			continue
		}
		var out locateOut
		if err == nil {
			out, err = locateOne(engine, line)
		}
		if err != nil {
			out = locateOut{Choices: []int{}, Scores: []float64{}, Error: fmt.Sprintf("line %d: %v", n, err)}
			fmt.Fprintf(stderr, "gardener locate: %s\n", out.Error)
			status = exitBadInput
		}
		if err := enc.Encode(out); err != nil {
			return exitFailure, err
		}
	}
}

func locateOne(engine similo.Engine, line []byte) (locateOut, error) {
	var in locateIn
	if err := json.Unmarshal(line, &in); err != nil {
		return locateOut{}, fmt.Errorf("not a page pair: %w", err)
	}
	out := locateOut{App: in.App, Choices: make([]int, len(in.Targets)), Scores: make([]float64, len(in.Targets))}
	page := similo.NewPage(in.Candidates)
	for i, t := range in.Targets {
		m := engine.LocateOn(page, t)
		out.Choices[i] = m.Index
		out.Scores[i] = math.Round(m.Confidence*1e4) / 1e4
	}
	return out, nil
}

var errLineTooLong = fmt.Errorf("longer than %d bytes", maxLocateLine)

// readLine returns the next line without its newline, or io.EOF when there is none. A line
// longer than limit is consumed and reported as errLineTooLong, so reading can go on.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > limit {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		case tooLong:
			return nil, errLineTooLong
		case err == nil:
			return line[:len(line)-1], nil
		case len(line) == 0:
			return nil, io.EOF
		default:
			return line, nil
		}
	}
}
