package gardener

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// ProofID names the proof of ops on a test version: the run record of the re-run of a copy with
// ops applied. Whoever writes or approves a fix recomputes it from what it is asked to write, so
// ops that were never proven find no proof.
func ProofID(testID string, version int, ops []Op) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d", testID, version)
	for _, op := range ops {
		fmt.Fprintf(h, "\x00%s", op.String())
	}
	return "proof-" + hex.EncodeToString(h.Sum(nil)[:16])
}
