// Package natstest starts real NATS servers with JetStream on loopback
// for the cluster's tests: a cluster of three, as processes, each with
// its own store, that a test can kill and restart. The server is the
// nats-server of the module's tool dependency (go.mod), built once into
// the user's cache directory, or the one $BITSIEVE_NATS_SERVER names.
package natstest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const serverModule = "github.com/nats-io/nats-server/v2"

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
	// cacheDir is the user's cache directory as the process started,
	// before a test points XDG_CACHE_HOME elsewhere.
	cacheDir, cacheErr = os.UserCacheDir()
)

// Binary is the path of a nats-server executable: $BITSIEVE_NATS_SERVER,
// or the module's pinned version, built on first use.
func Binary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() { binary, buildErr = build() })
	if buildErr != nil {
		tb.Fatalf("no nats-server: %v", buildErr)
	}
	return binary
}

func build() (string, error) {
	if p := os.Getenv("BITSIEVE_NATS_SERVER"); p != "" {
		return p, nil
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", serverModule).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", serverModule, err)
	}
	version := strings.TrimSpace(string(out))
	cache := cacheDir
	if cacheErr != nil {
		cache = os.TempDir()
	}
	path := filepath.Join(cache, "bitsieve-test", "nats-server-"+version)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, serverModule)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", serverModule, err, b)
	}
	return path, os.Rename(tmp, path)
}

// Server is one nats-server process of a Cluster.
type Server struct {
	Name    string
	Port    int
	cport   int
	dir     string
	routes  string
	cluster string
	bin     string

	mu  sync.Mutex
	cmd *exec.Cmd
	log *os.File
}

// URL is the server's client URL.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.Port) }

// Cluster is a JetStream cluster of servers on loopback.
type Cluster struct {
	Servers []*Server
}

// URLs is every server's client URL, comma-separated.
func (c *Cluster) URLs() string {
	var out []string
	for _, s := range c.Servers {
		out = append(out, s.URL())
	}
	return strings.Join(out, ",")
}

// Start starts a JetStream cluster of n servers on loopback and waits
// until it accepts JetStream requests; the servers are killed when the
// test ends.
func Start(tb testing.TB, n int) *Cluster {
	tb.Helper()
	bin := Binary(tb)
	dir := tb.TempDir()
	ports := freePorts(tb, 2*n)
	var routes []string
	for i := range n {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[n+i]))
	}
	c := &Cluster{}
	for i := range n {
		s := &Server{Name: fmt.Sprintf("s%d", i+1), Port: ports[i], cport: ports[n+i], bin: bin,
			dir: filepath.Join(dir, fmt.Sprintf("s%d", i+1)), routes: strings.Join(routes, ","), cluster: "bitsieve-test"}
		c.Servers = append(c.Servers, s)
	}
	for _, s := range c.Servers {
		if err := s.Start(); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() {
		for _, s := range c.Servers {
			s.Kill()
		}
	})
	if err := c.WaitReady(60 * time.Second); err != nil {
		for _, s := range c.Servers {
			b, _ := os.ReadFile(s.dir + ".log")
			tb.Logf("%s log:\n%s", s.Name, tail(b, 3000))
		}
		tb.Fatal(err)
	}
	return c
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Start starts (or restarts, on its store) the server.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(s.dir+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-n", s.Name, "-js", "-sd", s.dir,
		"--cluster_name", s.cluster, "--cluster", fmt.Sprintf("nats://127.0.0.1:%d", s.cport), "--routes", s.routes)
	cmd.Stdout, cmd.Stderr = log, log
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.log = cmd, log
	return nil
}

// Kill kills the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	s.log.Close()
	s.cmd = nil
}

// WaitReady waits until every running server answers JetStream requests.
func (c *Cluster) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, s := range c.Servers {
		s.mu.Lock()
		running := s.cmd != nil
		s.mu.Unlock()
		if !running {
			continue
		}
		for {
			err := ready(s.URL())
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("nats-server %s not ready after %s: %v", s.Name, timeout, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// ready checks that the server at url takes JetStream requests: that its
// cluster has elected a JetStream leader.
func ready(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// freePorts finds n ports free on loopback.
func freePorts(tb testing.TB, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
