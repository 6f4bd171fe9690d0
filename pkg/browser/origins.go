package browser

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// originGate decides which URLs a replay may load: the allowed origins, never a link-local,
// cloud metadata or unspecified address, whatever the allowed list says, because a test must
// not become a way to read a Lambda's credentials. Loopback is an origin like any other: a
// replay reaches the loopback ports its allowed origins name and no other.
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
	if why := refusedHost(u.Hostname()); why != "" {
		return why
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

// refusedHost says why no replay may reach host (a name or an address in any form a URL
// carries), "" when only the allowed origins decide.
func refusedHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if metadataHosts[host] {
		return "cloud metadata host"
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		// An IPv6 zone (fe80::1%eth0) names an interface: only link-local addresses have one.
		return "link-local address"
	}
	if ip := net.ParseIP(host); ip != nil {
		return refusedIP(ip)
	}
	return ""
}

// nat64 is the well-known prefix that maps IPv4 addresses into IPv6 (64:ff9b::/96).
var nat64 = &net.IPNet{IP: net.ParseIP("64:ff9b::"), Mask: net.CIDRMask(96, 128)}

// refusedIP says why no replay may reach ip, "" when only the allowed origins decide: link-local
// (169.254.0.0/16 holds the metadata address; fe80::/10), the IPv6 metadata address, the
// unspecified address (which reaches loopback on Linux), in IPv4, IPv4-mapped and NAT64 forms.
func refusedIP(ip net.IP) string {
	if nat64.Contains(ip) {
		ip = net.IP(ip[12:16])
	}
	switch {
	case ip.IsUnspecified():
		return "unspecified address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local or metadata address"
	case ip.Equal(net.ParseIP("fd00:ec2::254")):
		return "cloud metadata address"
	}
	return ""
}

// refuseHostPort is refuse for a CONNECT's authority (host:port): allowed when an allowed
// origin has that host and port, whatever its scheme, because Chromium tunnels https and
// WebSockets (ws and wss) alike and the port says where the tunnel goes.
func (g *originGate) refuseHostPort(authority string) string {
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		return "unparsable authority " + authority
	}
	if why := refusedHost(host); why != "" {
		return why
	}
	host = strings.ToLower(host)
	for _, o := range g.names {
		u, err := url.Parse(o)
		if err != nil {
			continue
		}
		if h, p := hostPortOf(u); h == host && p == port {
			return ""
		}
	}
	return "origin not in the allowed origins (" + strings.Join(g.names, ", ") + ")"
}
