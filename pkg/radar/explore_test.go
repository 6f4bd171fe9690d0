package radar

import (
	"encoding/json"
	"os"
	"testing"
)

func TestExplore(t *testing.T) {
	v := os.Getenv("RADAR_VARIANT")
	if v == "" {
		t.Skip()
	}
	s := newScene(t, v)
	sw := s.sweep()
	b, _ := json.MarshalIndent(sw, "", " ")
	t.Logf("%s", b)
	ps := s.pass()
	b, _ = json.MarshalIndent(ps, "", " ")
	t.Logf("%s", b)
	t.Logf("calls %d log %s", s.model.calls.Load(), s.log.String())
}
