package gardener

import "fmt"

// Plural is a count with its noun as people read it, in every text a door shows: Plural(1,
// "test", "tests") is "1 test", Plural(3, …) "3 tests" — never "1 tests" or "3 test(s)".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
