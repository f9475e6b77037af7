package cluster

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnOptions say how to reach the NATS servers of a cluster.
type ConnOptions struct {
	// URLs is a comma-separated list of server URLs (nats://host:port,
	// tls://host:port); user and password may be given in a URL's user
	// info.
	URLs string
	// Creds is a credentials file (a user JWT and its NKey seed).
	Creds string
	// TLSCA is a file of CA certificates that the servers' certificates
	// must chain to; TLSCert and TLSKey a client certificate and its key,
	// for servers that verify clients.
	TLSCA, TLSCert, TLSKey string
	// Name names the connection in the servers' monitoring.
	Name string
}

// ParseURLs splits and checks a comma-separated list of NATS server URLs.
func ParseURLs(list string) ([]string, error) {
	var out []string
	for _, u := range strings.Split(list, ",") {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		if !strings.Contains(u, "://") {
			u = "nats://" + u
		}
		p, err := url.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("bad NATS server URL %q: %v", u, err)
		}
		switch p.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return nil, fmt.Errorf("bad NATS server URL %q: the scheme must be nats, tls, ws or wss", u)
		}
		if p.Hostname() == "" {
			return nil, fmt.Errorf("bad NATS server URL %q: it names no host", u)
		}
		if p.Port() != "" {
			if _, err := url.Parse("//x:" + p.Port()); err != nil {
				return nil, fmt.Errorf("bad NATS server URL %q: bad port", u)
			}
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, errors.New("no NATS server URL given: pass --nats nats://host:4222 (a comma-separated list for several)")
	}
	return out, nil
}

// Connect connects to the NATS servers of opt. The connection reconnects
// on its own, to any server of the list or of the servers' own cluster,
// for as long as it is open.
func Connect(opt ConnOptions) (*nats.Conn, error) {
	urls, err := ParseURLs(opt.URLs)
	if err != nil {
		return nil, err
	}
	name := opt.Name
	if name == "" {
		name = "bitsieve"
	}
	nopts := []nats.Option{
		nats.Name(name),
		nats.Timeout(3 * time.Second),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		// Errors of the connection itself are returned by the calls that
		// meet them; the default handler would print them.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	}
	if opt.Creds != "" {
		nopts = append(nopts, nats.UserCredentials(opt.Creds))
	}
	if opt.TLSCA != "" {
		nopts = append(nopts, nats.RootCAs(opt.TLSCA))
	}
	if opt.TLSCert != "" || opt.TLSKey != "" {
		if opt.TLSCert == "" || opt.TLSKey == "" {
			return nil, errors.New("give both --nats-tls-cert and --nats-tls-key, or neither")
		}
		nopts = append(nopts, nats.ClientCert(opt.TLSCert, opt.TLSKey))
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nopts...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the NATS servers %s: %w", strings.Join(urls, ", "), err)
	}
	return nc, nil
}
