package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/spf13/pflag"
)

func init() {
	register(command{parent: "cluster", name: "status", summary: "a cluster's nodes, shards, generations and lag, and what is unhealthy", define: runClusterStatus})
}

// natsFlags are the flags of the commands that work on a cluster.
type natsFlags struct {
	urls, name, creds, ca, cert, key *string
	timeout                          *time.Duration
}

// addNATSFlags adds --nats and its companions to a flag set.
func addNATSFlags(fs *pflag.FlagSet) *natsFlags {
	return &natsFlags{
		urls:    fs.String("nats", "", "work on a cluster index on these NATS servers (comma-separated URLs, user:password@ allowed) instead of a local index"),
		name:    fs.String("cluster", cluster.DefaultName, "the cluster's name (with --nats)"),
		creds:   fs.String("nats-creds", "", "NATS credentials file (with --nats)"),
		ca:      fs.String("nats-tls-ca", "", "CA certificates the NATS servers' certificates must chain to (with --nats)"),
		cert:    fs.String("nats-tls-cert", "", "client certificate for NATS servers that verify clients (with --nats)"),
		key:     fs.String("nats-tls-key", "", "the client certificate's key (with --nats)"),
		timeout: fs.Duration("nats-timeout", 2*time.Second, "how long a shard's owner may take before another is asked (with --nats)"),
	}
}

// set reports whether --nats was given.
func (f *natsFlags) set() bool { return *f.urls != "" }

// conn connects to the servers.
func (f *natsFlags) options(logger *slog.Logger) (cluster.ConnOptions, cluster.Options) {
	return cluster.ConnOptions{URLs: *f.urls, Creds: *f.creds, TLSCA: *f.ca, TLSCert: *f.cert, TLSKey: *f.key, Name: "bitsieve " + os.Args[min(1, len(os.Args)-1)]},
		cluster.Options{Name: *f.name, Timeout: *f.timeout, Logger: logger}
}

// open connects and opens the cluster; close closes the connection.
func (f *natsFlags) open(ctx context.Context, logger *slog.Logger) (*cluster.Cluster, func(), error) {
	co, opt := f.options(logger)
	nc, err := cluster.Connect(co)
	if err != nil {
		return nil, nil, err
	}
	c, err := cluster.Open(ctx, nc, opt)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, nc.Close, nil
}

// create connects and opens the cluster, creating it with cfg when it does
// not exist.
func (f *natsFlags) create(ctx context.Context, cfg cluster.Config, logger *slog.Logger) (*cluster.Cluster, func(), error) {
	co, opt := f.options(logger)
	nc, err := cluster.Connect(co)
	if err != nil {
		return nil, nil, err
	}
	c, err := cluster.Create(ctx, nc, cfg, opt)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, nc.Close, nil
}

// openTimeout bounds connecting to a cluster and reading its state.
const openTimeout = 15 * time.Second

func runClusterStatus(fs *pflag.FlagSet) runFunc {
	nf := addNATSFlags(fs)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			return fail(stderr, "cluster status takes no arguments (got %q)", args[0])
		}
		if !nf.set() {
			return fail(stderr, "give the cluster's NATS servers: bitsieve cluster status --nats nats://host:4222")
		}
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		c, done, err := nf.open(ctx, quietLogger())
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer done()
		st, err := c.Status(ctx)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(st)
		} else {
			printStatus(stdout, st)
		}
		if !st.Healthy {
			return exitNoMatch
		}
		return exitOK
	}
}

// printStatus prints a cluster's status as text.
func printStatus(w io.Writer, st *cluster.Status) {
	cfg := st.Config
	fmt.Fprintf(w, "cluster %s: %d shards, %d owners each, %s analyzer, writes kept on %d NATS servers\n",
		cfg.Name, cfg.Shards, cfg.Replicas, cfg.Analyzer, cfg.StreamReplicas)
	fmt.Fprintf(w, "nodes (%d live):\n", len(st.Nodes))
	for _, n := range st.Nodes {
		addr := n.Addr
		if addr == "" {
			addr = "-"
		}
		var prim []string
		for _, s := range n.Shards {
			if s.Primary {
				prim = append(prim, strconv.Itoa(s.Shard))
			}
		}
		fmt.Fprintf(w, "  %-28s %-22s %d shards, primary of [%s], seen %s ago\n", n.ID, addr, len(n.Shards), strings.Join(prim, " "),
			time.Since(n.Seen).Round(100*time.Millisecond))
	}
	fmt.Fprintln(w, "shards:")
	for _, s := range st.Shards {
		var serving []string
		for _, id := range s.Owners {
			if g, ok := s.Serving[id]; ok {
				serving = append(serving, fmt.Sprintf("%s@%d", id, g))
			} else {
				serving = append(serving, id+"@-")
			}
		}
		fmt.Fprintf(w, "  %3d  generation %-5d seq %-8d lag %-6d owners %s\n", s.Shard, s.Generation, s.Seq, s.Lag, strings.Join(serving, " "))
	}
	if st.Healthy {
		fmt.Fprintln(w, "healthy")
		return
	}
	fmt.Fprintf(w, "unhealthy (%d):\n", len(st.Problems))
	for _, p := range st.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// quietLogger discards the library's logging, for commands that report
// errors themselves.
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// defaultNodeDir is where a cluster node keeps its shards by default.
func defaultNodeDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "bitsieve", "nodes")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "bitsieve", "nodes")
	}
	return ".bitsieve-node"
}

// missingShards names the shards a partial answer lacks.
func missingShards(missing []int) string {
	s := slices.Clone(missing)
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = strconv.Itoa(m)
	}
	return strings.Join(parts, ", ")
}
