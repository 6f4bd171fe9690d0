package browser

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// originGate decides which URLs a replay may load: the allowed origins, never a link-local or
// cloud metadata address, whatever the allowed list says, because a test must not become a
// way to read a Lambda's credentials.
type originGate struct {
	allowed map[string]bool
	names   []string
}

// metadataHosts are cloud metadata endpoints reachable by name.
var metadataHosts = map[string]bool{
	"metadata.google.internal": true, "metadata": true, "metadata.azure.internal": true,
	"instance-data": true, "instance-data.ec2.internal": true,
}

// newOriginGate builds the gate from explicit origins, or from base's origin when none are given.
func newOriginGate(base string, allowed []string) (*originGate, error) {
	g := &originGate{allowed: map[string]bool{}}
	if len(allowed) == 0 {
		if base == "" {
			return nil, fmt.Errorf("no BaseURL and no AllowedOrigins: nothing may be loaded")
		}
		allowed = []string{base}
	}
	for _, a := range allowed {
		o, err := originOf(a)
		if err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", a, err)
		}
		if !g.allowed[o] {
			g.allowed[o] = true
			g.names = append(g.names, o)
		}
	}
	return g, nil
}

// originOf normalises a URL to scheme://host[:port], dropping default ports.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return "", fmt.Errorf("no host")
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return u.Scheme + "://" + net.JoinHostPort(host, port), nil
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + host, nil
}

// refuse returns why the URL may not be loaded, "" when it may.
func (g *originGate) refuse(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "unparsable URL"
	}
	switch u.Scheme {
	case "data", "blob", "about":
		return ""
	case "http", "https", "ws", "wss":
	default:
		return "scheme " + u.Scheme + " is not allowed"
	}
	host := strings.ToLower(u.Hostname())
	if metadataHosts[host] {
		return "cloud metadata host"
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.Equal(net.ParseIP("fd00:ec2::254")) {
			return "link-local or metadata address"
		}
	}
	probe := *u
	switch probe.Scheme {
	case "ws":
		probe.Scheme = "http"
	case "wss":
		probe.Scheme = "https"
	}
	o, err := originOf(probe.String())
	if err != nil || !g.allowed[o] {
		return "origin not in the allowed origins (" + strings.Join(g.names, ", ") + ")"
	}
	return ""
}
