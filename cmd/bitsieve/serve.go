package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/web"
)

func init() {
	register(command{name: "serve", args: "", summary: "serve the search page and the JSON API over HTTP", define: runServe})
}

func runServe(fs *pflag.FlagSet) runFunc {
	dir := indexFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; 0.0.0.0:8080 serves the network)")
	token := fs.String("write-token", "", "enable the write API, with this bearer token (default $BITSIEVE_WRITE_TOKEN; prefer the variable: flags show in ps)")
	logFormat := fs.String("log", "text", "log format on stderr: text or json")
	debug := fs.Bool("debug", false, "also log health, metrics and static file requests")
	watch := fs.String("watch", "", "index this directory first, then keep the index following its changes")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this certificate chain (PEM; with --tls-key; reloaded when the file changes)")
	tlsKey := fs.String("tls-key", "", "the private key of --tls-cert (PEM)")
	lim := web.DefaultLimits()
	fs.IntVar(&lim.MaxConcurrent, "max-concurrent", lim.MaxConcurrent, "searches running at once; more wait")
	fs.IntVar(&lim.MaxQueue, "max-queue", lim.MaxQueue, "requests waiting for a search; more get 429")
	fs.DurationVar(&lim.QueueTimeout, "queue-timeout", lim.QueueTimeout, "longest wait for a search slot; then 503")
	fs.DurationVar(&lim.SearchTimeout, "search-timeout", lim.SearchTimeout, "longest a search may run; then 503")
	fs.Int64Var(&lim.HeavyUnits, "heavy-units", lim.HeavyUnits, "estimated cost from which a search is heavy and takes the heavy lane (explain shows a query's cost); 0: a quarter of the index's documents, at least 4096")
	fs.IntVar(&lim.MaxHeavy, "max-heavy", lim.MaxHeavy, "heavy searches running at once, one core each; more wait in their own queue")
	fs.Int64Var(&lim.MaxBodyBytes, "max-body", lim.MaxBodyBytes, "largest request body in bytes (write API); larger get 413")
	fs.IntVar(&lim.MaxPageSize, "max-page-size", lim.MaxPageSize, "most hits per page (limit)")
	nf := addNATSFlags(fs)
	data := fs.String("data", "", "with --nats: the node's directory, for its identity and its copies of shards (default ~/.local/share/bitsieve/nodes)")
	shards := fs.Int("shards", 0, "with --nats: the shard count the node expects (a cluster created by this node gets it; another count is refused)")
	lang := fs.String("lang", "", "with --nats: the analyzer the node expects (a cluster created by this node gets it; another is refused)")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			return fail(stderr, "serve takes no arguments (got %q); the index is chosen with --index", args[0])
		}
		if *token == "" {
			*token = os.Getenv("BITSIEVE_WRITE_TOKEN")
		}
		level := slog.LevelInfo
		if *debug {
			level = slog.LevelDebug
		}
		var h slog.Handler
		switch *logFormat {
		case "text":
			h = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
		case "json":
			h = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
		default:
			return fail(stderr, "--log must be text or json, not %q", *logFormat)
		}
		logger := slog.New(h)
		opt := web.Options{WriteToken: *token, Limits: lim, Logger: logger}
		if (*tlsCert == "") != (*tlsKey == "") {
			return fail(stderr, "--tls-cert and --tls-key go together: give both to serve HTTPS")
		}
		if *tlsCert != "" {
			var err error
			if opt.TLS, err = web.LoadTLS(*tlsCert, *tlsKey); err != nil {
				return fail(stderr, "%v", err)
			}
		}

		if nf.set() {
			if *dir != "" || *watch != "" {
				return fail(stderr, "--index and --watch serve a local index; a cluster node (--nats) serves the cluster's shards")
			}
			return serveCluster(nf, clusterNode{data: *data, shards: *shards, lang: *lang}, opt, *addr, stderr)
		}
		if fs.Changed("data") || fs.Changed("shards") || fs.Changed("lang") {
			return fail(stderr, "--data, --shards and --lang are for a cluster node: give the cluster's servers with --nats")
		}

		var follow *follower
		if *watch != "" {
			if *dir == "" {
				*dir = defaultIndexDir()
			}
			var err error
			if follow, err = startFollower(*watch, *dir, stdout, stderr); err != nil {
				return fail(stderr, "%v", err)
			}
		}
		ix, err := openIndex(*dir, stderr)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		sample := ix.Dir() == sampleDir()
		if ix.Generation() == 0 {
			logger.Warn("serving an empty index: no indexing run has finished there yet (a first run that was interrupted leaves it so); index documents, or write them through the API", "index", ix.Dir())
		}
		opt.Dir, opt.Index, opt.Sample = ix.Dir(), ix, sample
		srv, err := web.New(opt)
		if err != nil {
			ix.Close()
			return fail(stderr, "%v", err)
		}
		defer srv.Close()

		ln, err := listen(*addr, logger)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		fmt.Fprintf(stderr, "bitsieve: serving %d documents at %s (Ctrl-C to stop)\n", ix.NumDocs(), srv.URL(ln.Addr()))
		ctx, stop := stopContext()
		defer stop()
		if follow != nil {
			go follow.loop(ctx)
		}
		if err := srv.Serve(ctx, ln); err != nil {
			return fail(stderr, "%v", err)
		}
		return exitOK
	}
}

// listen listens on addr, warning when it is not loopback.
func listen(addr string, logger *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %v", addr, err)
	}
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
			logger.Warn("listening beyond loopback: anyone who can reach this address can search the index", "address", ln.Addr().String())
		}
	}
	return ln, nil
}

// stopContext ends at the first SIGINT or SIGTERM; a second stops the
// process at once.
func stopContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// clusterNode is what serve --nats expects of the cluster and where it
// keeps its shards.
type clusterNode struct {
	data   string
	shards int
	lang   string
}

// serveCluster joins the cluster of nf as a node and serves the whole
// cluster index over HTTP.
func serveCluster(nf *natsFlags, cn clusterNode, opt web.Options, addr string, stderr io.Writer) int {
	logger := opt.Logger
	ln, err := listen(addr, logger)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer ln.Close()
	octx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	var c *cluster.Cluster
	var done func()
	if cn.shards != 0 || cn.lang != "" {
		c, done, err = nf.create(octx, cluster.Config{Shards: cn.shards, Analyzer: cn.lang}, logger)
	} else {
		c, done, err = nf.open(octx, logger)
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if cn.data == "" {
		cn.data = defaultNodeDir()
	}
	node, err := c.Join(cluster.NodeOptions{Dir: cn.data, Addr: ln.Addr().String()})
	if err != nil {
		done()
		return fail(stderr, "%v", err)
	}
	opt.Backend = &clusterBackend{c: c, node: node, done: done}
	srv, err := web.New(opt)
	if err != nil {
		opt.Backend.Close()
		return fail(stderr, "%v", err)
	}
	defer srv.Close()
	fmt.Fprintf(stderr, "bitsieve: node %s of cluster %s (%d shards) serving at %s (Ctrl-C to stop)\n",
		node.ID(), c.Config().Name, c.Config().Shards, srv.URL(ln.Addr()))
	ctx, stop := stopContext()
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return fail(stderr, "%v", err)
	}
	return exitOK
}
