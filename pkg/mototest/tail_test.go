package mototest

import (
	"strings"
	"testing"
)

func TestTailKeepsTheEnd(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{"short", []string{"started"}, "started"},
		{"exactly full", []string{"0123456789"}, "0123456789"},
		{"one write over", []string{"0123456789AB"}, "23456789AB"},
		{"many writes over", []string{"0123", "4567", "89AB", "CD"}, "456789ABCD"},
	}
	for _, c := range cases {
		w := &Tail{Max: 10}
		for _, s := range c.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("%s: Write(%q) = %d, %v", c.name, s, n, err)
			}
		}
		if got := w.String(); got != c.want {
			t.Errorf("%s: kept %q, want %q (from %q)", c.name, got, c.want, strings.Join(c.writes, ""))
		}
	}
}
