package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is an open cluster index: its configuration and its JetStream
// resources, over one NATS connection. A client (a search, a writer) and
// a node use it alike. It is safe for concurrent use.
type Cluster struct {
	cfg    Config
	nc     *nats.Conn
	js     jetstream.JetStream
	state  jetstream.KeyValue // config and shard.<i>
	nodes  jetstream.KeyValue // node.<id>, expiring
	files  jetstream.ObjectStore
	stream jetstream.Stream
	opt    Options

	analyzers sync.Pool  // *tokenize.Analyzer of cfg.Analyzer, for Parse
	stats     statsCache // what the first rounds of searches learned
}

// Options configure an open Cluster.
type Options struct {
	// Name is the cluster's name (default DefaultName).
	Name string
	// Timeout bounds each request to a shard's owners before it is tried
	// on another owner (default 2s); a search as a whole is bounded by
	// its context.
	Timeout time.Duration
	// Logger receives what a node does (default slog.Default()).
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Open opens the existing cluster opt.Name over nc.
func Open(ctx context.Context, nc *nats.Conn, opt Options) (*Cluster, error) {
	opt.defaults()
	if err := checkName(opt.Name); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	cfg, state, err := readConfig(ctx, js, opt.Name)
	if err != nil {
		return nil, jetstreamHint(err)
	}
	return attach(ctx, nc, js, cfg, state, opt)
}

// Create creates the cluster cfg describes (its stream, buckets and
// configuration) and opens it; when a cluster of that name exists, it
// opens that one, whose configuration must then agree with cfg's shard
// count and analyzer where they are given. Fields left zero take the
// defaults (DefaultShards, DefaultReplicas, tokenize.DefaultLanguage, and
// as many stream replicas as there are servers, up to three).
func Create(ctx context.Context, nc *nats.Conn, cfg Config, opt Options) (*Cluster, error) {
	opt.defaults()
	cfg.Name = opt.Name
	want := Expect{Shards: cfg.Shards, Analyzer: cfg.Analyzer}
	if cfg.Analyzer == "" {
		cfg.Analyzer = tokenize.DefaultLanguage
	}
	if cfg.Shards == 0 {
		cfg.Shards = DefaultShards
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = DefaultReplicas
	}
	if cfg.StreamReplicas == 0 {
		cfg.StreamReplicas = min(3, max(1, len(nc.Servers())))
	}
	cfg.Format = index.FormatVersion
	cfg.Created = time.Now().UTC()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	if old, state, err := readConfig(ctx, js, cfg.Name); err == nil {
		if err := want.check(old); err != nil {
			return nil, err
		}
		return attach(ctx, nc, js, old, state, opt)
	} else if !errors.Is(err, ErrNoCluster) {
		return nil, jetstreamHint(err)
	}
	r := cfg.StreamReplicas
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        streamName(cfg.Name),
		Description: "bitsieve cluster " + cfg.Name + ": document writes, a subject per shard",
		Subjects:    []string{docsWildcard(cfg.Name)},
		Storage:     jetstream.FileStorage,
		Replicas:    r,
		Retention:   jetstream.LimitsPolicy,
		Duplicates:  2 * time.Minute,
	}); err != nil {
		return nil, jetstreamHint(fmt.Errorf("cluster %s: creating its stream: %w", cfg.Name, err))
	}
	state, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: stateBucket(cfg.Name), Description: "bitsieve cluster " + cfg.Name + ": configuration and shard generations",
		Storage: jetstream.FileStorage, Replicas: r, History: 1,
	})
	if err != nil {
		return nil, jetstreamHint(fmt.Errorf("cluster %s: creating its state bucket: %w", cfg.Name, err))
	}
	if _, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: nodesBucket(cfg.Name), Description: "bitsieve cluster " + cfg.Name + ": live nodes",
		Storage: jetstream.FileStorage, Replicas: r, History: 1, TTL: nodeTTL,
	}); err != nil {
		return nil, jetstreamHint(fmt.Errorf("cluster %s: creating its nodes bucket: %w", cfg.Name, err))
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: filesBucket(cfg.Name), Description: "bitsieve cluster " + cfg.Name + ": shard files",
		Storage: jetstream.FileStorage, Replicas: r,
	}); err != nil {
		return nil, jetstreamHint(fmt.Errorf("cluster %s: creating its object store: %w", cfg.Name, err))
	}
	b, _ := json.Marshal(cfg)
	if _, err := state.Create(ctx, configKey, b); err != nil {
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("cluster %s: writing its configuration: %w", cfg.Name, err)
		}
		// Created meanwhile by another client: that one stands.
		return Open(ctx, nc, opt)
	}
	return attach(ctx, nc, js, cfg, state, opt)
}

// attach opens the resources of a cluster whose configuration is read.
func attach(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, cfg Config, state jetstream.KeyValue, opt Options) (*Cluster, error) {
	c := &Cluster{cfg: cfg, nc: nc, js: js, state: state, opt: opt}
	var err error
	if c.nodes, err = js.KeyValue(ctx, nodesBucket(cfg.Name)); err != nil {
		return nil, fmt.Errorf("cluster %s: its nodes bucket: %w", cfg.Name, err)
	}
	if c.files, err = js.ObjectStore(ctx, filesBucket(cfg.Name)); err != nil {
		return nil, fmt.Errorf("cluster %s: its object store: %w", cfg.Name, err)
	}
	if c.stream, err = js.Stream(ctx, streamName(cfg.Name)); err != nil {
		return nil, fmt.Errorf("cluster %s: its stream: %w", cfg.Name, err)
	}
	return c, nil
}

// jetstreamHint adds to an error that says JetStream is off how to turn
// it on.
func jetstreamHint(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("%w (start nats-server with -js, or jetstream {} in its configuration)", err)
	}
	return err
}

// Config is the cluster's configuration.
func (c *Cluster) Config() Config { return c.cfg }

// Conn is the cluster's NATS connection.
func (c *Cluster) Conn() *nats.Conn { return c.nc }
