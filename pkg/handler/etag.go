package handler

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// VersionMismatchError is a conditional write whose If-Match names a version the record is no
// longer at: someone wrote it since the caller read it. The API answers 412, with the current
// version in the message and the ETag.
type VersionMismatchError struct {
	Entity, ID string
	IfMatch    string
	Version    int
}

func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("%s %s is at version %d (ETag %s), not If-Match %s: it changed since it was read; read it again", e.Entity, e.ID, e.Version, etag(e.Version), e.IfMatch)
}

// PreconditionError is a request whose If-Match or If-None-Match cannot hold for the record as
// it is (none to match, or one that exists already): 412.
type PreconditionError struct{ Reason string }

func (e *PreconditionError) Error() string { return e.Reason }

// etag is the strong entity tag of a record's version.
func etag(version int) string { return strconv.Quote(strconv.Itoa(version)) }

// precondition is a request's If-Match: the versions it accepts, or any ("*").
type precondition struct {
	raw      string
	any      bool
	versions []int
}

func (p precondition) matches(version int) bool { return p.any || slices.Contains(p.versions, version) }

// ifMatch reads a request's If-Match header; nil when it has none. Only strong tags of the
// form the API hands out ("3") compare, as RFC 9110 wants for If-Match; anything else is refused
// rather than silently never matching.
func ifMatch(r *http.Request) (*precondition, error) {
	raw := strings.TrimSpace(r.Header.Get("If-Match"))
	if raw == "" {
		return nil, nil
	}
	p := &precondition{raw: raw}
	if raw == "*" {
		p.any = true
		return p, nil
	}
	for _, tag := range strings.Split(raw, ",") {
		tag = strings.TrimSpace(tag)
		s, err := strconv.Unquote(tag)
		v, err2 := strconv.Atoi(s)
		if err != nil || err2 != nil || !strings.HasPrefix(tag, `"`) || v < 0 {
			return nil, fmt.Errorf("If-Match %q: %q is not an ETag this API gave (a quoted version, e.g. \"3\")", raw, tag)
		}
		p.versions = append(p.versions, v)
	}
	return p, nil
}
