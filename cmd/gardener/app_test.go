package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/tests/demoapp"
)

func TestAppList(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"app", "--list"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("gardener app --list exited %d: %s", code, errOut.String())
	}
	for _, v := range demoapp.Variants() {
		for _, want := range []string{v.Name, string(v.Kind), v.CorrectRepair} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("--list lacks %q for variant %s", want, v.Name)
			}
		}
	}
}

func TestAppBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"app", "--variant", "no-such-variant"}, `unknown demo app variant "no-such-variant"`},
		{[]string{"app", "--listen", "256.0.0.1:80"}, "listening on"},
		{[]string{"app", "extra"}, `unexpected argument "extra"`},
		{[]string{"app", "--bogus"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := dispatch(tc.args, nil, &out, &errOut); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("bad input wrote to stdout: %q", out.String())
			}
		})
	}
	var errOut bytes.Buffer
	dispatch([]string{"app", "--variant", "nope"}, nil, io.Discard, &errOut)
	if !strings.Contains(errOut.String(), "cookie-banner") || !strings.Contains(errOut.String(), "repair:") {
		t.Error("an unknown variant is not answered with the list of variants")
	}
}

func TestAppServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runApp(ctx, &cli{stdout: pw, stderr: io.Discard}, []string{"--variant", "button-text"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL line: %v", err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the URL served on", line)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), ">Sign in</button>") {
		t.Errorf("GET /login = %d; want the button-text variant's page", resp.StatusCode)
	}
	cancel()
	go io.Copy(io.Discard, pr)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("gardener app exited %d after the interrupt, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gardener app did not stop after the interrupt")
	}
}
