// Package toxitest gives tests a proxy of their own on the Toxiproxy server
// that scripts/toxiproxy-start.sh runs (OLTPBENCH_TEST_TOXIPROXY), between
// the client and the test's MariaDB, to make the network slow, lossy or
// half-open. No mock: without the server a test skips, and fails under CI.
package toxitest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2/client"
)

// Proxy is a proxy to one upstream: connect to Host:Port to go through it.
type Proxy struct {
	*toxiproxy.Proxy
	Host string
	Port int
}

var seq atomic.Int64

// New returns a proxy to upstream (host:port) on a free loopback port,
// deleted when the test ends; it skips (fails under CI) without the server.
func New(t testing.TB, upstream string) *Proxy {
	t.Helper()
	api := os.Getenv("OLTPBENCH_TEST_TOXIPROXY")
	if api == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("OLTPBENCH_TEST_TOXIPROXY not set: run through make test")
		}
		t.Skip("no Toxiproxy: run make test")
	}
	c := toxiproxy.NewClient(api)
	name := fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(t.Name(), "/", "_"), os.Getpid(), seq.Add(1))
	p, err := c.CreateProxy(name, "127.0.0.1:0", upstream)
	if err != nil {
		t.Fatalf("toxiproxy: %v", err)
	}
	t.Cleanup(func() { p.Delete() })
	host, port, err := net.SplitHostPort(p.Listen)
	if err != nil {
		t.Fatalf("toxiproxy listens on %q: %v", p.Listen, err)
	}
	n, _ := strconv.Atoi(port)
	return &Proxy{Proxy: p, Host: host, Port: n}
}

// Add adds a toxic of type typ on stream ("upstream": client to server;
// "downstream": server to client) to a share (toxicity, 0-1) of the
// connections; it returns its name for Remove.
func (p *Proxy) Add(t testing.TB, typ, stream string, toxicity float32, attrs toxiproxy.Attributes) string {
	t.Helper()
	name := fmt.Sprintf("%s-%s-%d", typ, stream, seq.Add(1))
	if _, err := p.AddToxic(name, typ, stream, toxicity, attrs); err != nil {
		t.Fatalf("toxiproxy: add %s: %v", typ, err)
	}
	return name
}

// Remove removes the toxic named.
func (p *Proxy) Remove(t testing.TB, name string) {
	t.Helper()
	if err := p.RemoveToxic(name); err != nil {
		t.Fatalf("toxiproxy: remove %s: %v", name, err)
	}
}

// Cut disables the proxy: every connection through it is closed and new
// ones are refused, as a network cut; Restore enables it again.
func (p *Proxy) Cut(t testing.TB) {
	t.Helper()
	if err := p.Disable(); err != nil {
		t.Fatalf("toxiproxy: disable: %v", err)
	}
}

// Restore enables a cut proxy.
func (p *Proxy) Restore(t testing.TB) {
	t.Helper()
	if err := p.Enable(); err != nil {
		t.Fatalf("toxiproxy: enable: %v", err)
	}
}
