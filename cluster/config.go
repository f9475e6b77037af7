package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/nats-io/nats.go/jetstream"
)

// Config is the fixed shape of a cluster index, stored under the key
// "config" of its state bucket when the cluster is created. Every node and
// client checks it before it reads or writes anything.
type Config struct {
	Name     string `json:"name"`
	Shards   int    `json:"shards"`   // document-partitioned shards, fixed at creation
	Replicas int    `json:"replicas"` // nodes that own (serve) each shard, the primary among them
	Analyzer string `json:"analyzer"` // tokenize language of every shard
	Format   int    `json:"format"`   // index.FormatVersion of the shards' files
	// StreamReplicas is how many NATS servers keep each write, shard
	// file and state key (JetStream replicas).
	StreamReplicas int       `json:"stream_replicas"`
	Created        time.Time `json:"created"`
}

// DefaultName is the cluster a command joins without --cluster.
const DefaultName = "bitsieve"

// DefaultShards is the shard count of a cluster created without --shards.
const DefaultShards = 4

// DefaultReplicas is how many nodes own each shard by default: two, so
// that a node's loss leaves every shard served.
const DefaultReplicas = 2

// MaxShards bounds the shard count of a cluster.
const MaxShards = 1024

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ErrNoCluster is the error of opening a cluster that has not been created.
var ErrNoCluster = errors.New("no such cluster")

// ErrMismatch is the error of a node or writer whose expectations (shard
// count, analyzer, format version) differ from the cluster's Config.
var ErrMismatch = errors.New("the cluster differs")

// checkName refuses a cluster name that cannot be part of a subject, a
// stream name and a bucket name.
func checkName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("bad cluster name %q: use 1 to 64 letters, digits, '-' and '_'", name)
	}
	return nil
}

// validate checks a Config read from the cluster or given to Create.
func (c Config) validate() error {
	if err := checkName(c.Name); err != nil {
		return err
	}
	if c.Shards < 1 || c.Shards > MaxShards {
		return fmt.Errorf("cluster %s: %d shards: give 1 to %d", c.Name, c.Shards, MaxShards)
	}
	if c.Replicas < 1 {
		return fmt.Errorf("cluster %s: %d replicas: give at least 1", c.Name, c.Replicas)
	}
	if c.StreamReplicas < 1 || c.StreamReplicas > 5 {
		return fmt.Errorf("cluster %s: %d stream replicas: give 1 to 5", c.Name, c.StreamReplicas)
	}
	if _, err := tokenize.New(c.Analyzer); err != nil {
		return fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	return nil
}

// The names of a cluster's JetStream resources and subjects. A cluster
// named N has:
//
//	stream  BITSIEVE_N        subjects bitsieve.N.docs.<shard>: the writes
//	bucket  bitsieve_N        keys config and shard.<shard>: the cluster's
//	                          shape and each shard's published generation
//	bucket  bitsieve_N_nodes  keys node.<id>, expiring: the live nodes
//	objects bitsieve_N_files  the shards' files and documents too large
//	                          for one message
//
// and the request subjects bitsieve.N.q.<shard> (a queue group of the
// shard's owners) and bitsieve.N.node.<id> (one node).
func streamName(c string) string         { return "BITSIEVE_" + c }
func stateBucket(c string) string        { return "bitsieve_" + c }
func nodesBucket(c string) string        { return "bitsieve_" + c + "_nodes" }
func filesBucket(c string) string        { return "bitsieve_" + c + "_files" }
func docsSubject(c string, s int) string { return "bitsieve." + c + ".docs." + strconv.Itoa(s) }
func docsWildcard(c string) string       { return "bitsieve." + c + ".docs.>" }
func shardSubject(c string, s int) string {
	return "bitsieve." + c + ".q." + strconv.Itoa(s)
}
func nodeSubject(c, id string) string { return "bitsieve." + c + ".node." + id }
func shardKey(s int) string           { return "shard." + strconv.Itoa(s) }
func nodeKey(id string) string        { return "node." + id }

const configKey = "config"

// queueGroup is the queue group of a shard's owners on its subject: each
// request goes to one of them.
const queueGroup = "owners"

// nodeTTL is how long a node's key lives after its last heartbeat: a node
// that stops (killed, cut off) leaves the live set within it, and its
// shards move to the next owners.
const nodeTTL = 4 * time.Second

// heartbeat is how often a node renews its key.
const heartbeat = time.Second

// readConfig reads the cluster's Config from its state bucket.
func readConfig(ctx context.Context, js jetstream.JetStream, name string) (Config, jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, stateBucket(name))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return Config{}, nil, fmt.Errorf("cluster %s: %w (create it with bitsieve index --nats URL --shards N)", name, ErrNoCluster)
	}
	if err != nil {
		return Config{}, nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	e, err := kv.Get(ctx, configKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Config{}, nil, fmt.Errorf("cluster %s: %w (create it with bitsieve index --nats URL --shards N)", name, ErrNoCluster)
	}
	if err != nil {
		return Config{}, nil, fmt.Errorf("cluster %s: reading its configuration: %w", name, err)
	}
	var c Config
	if err := json.Unmarshal(e.Value(), &c); err != nil {
		return Config{}, nil, fmt.Errorf("cluster %s: its configuration is not valid JSON: %w", name, err)
	}
	if c.Format != index.FormatVersion {
		return Config{}, nil, fmt.Errorf("cluster %s holds index format version %d and this bitsieve reads version %d: %w; rebuild it with this version (a new cluster name, or delete its streams and buckets)", name, c.Format, index.FormatVersion, ErrMismatch)
	}
	if err := c.validate(); err != nil {
		return Config{}, nil, err
	}
	return c, kv, nil
}

// Expect is what a node or writer requires of a cluster it joins; a zero
// field requires nothing.
type Expect struct {
	Shards   int
	Analyzer string
}

// check refuses a cluster whose Config differs from what e requires.
func (e Expect) check(c Config) error {
	if e.Shards != 0 && e.Shards != c.Shards {
		return fmt.Errorf("cluster %s has %d shards, not %d: %w", c.Name, c.Shards, e.Shards, ErrMismatch)
	}
	if e.Analyzer != "" && e.Analyzer != c.Analyzer {
		return fmt.Errorf("cluster %s analyzes with %s, not %s: %w", c.Name, c.Analyzer, e.Analyzer, ErrMismatch)
	}
	return nil
}
