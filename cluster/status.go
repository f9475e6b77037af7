package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Status is the state of a cluster: its nodes, and for each shard its
// owners, its published generation, the writes not yet in it, and what
// is wrong.
type Status struct {
	Config   Config        `json:"config"`
	Nodes    []NodeStatus  `json:"nodes"`
	Shards   []ShardStatus `json:"shards"`
	Healthy  bool          `json:"healthy"`
	Problems []string      `json:"problems"`
}

// NodeStatus is a live node, as its key says, and when it last said so.
type NodeStatus struct {
	NodeInfo
	Seen time.Time `json:"seen"`
}

// ShardStatus is one shard of a Status.
type ShardStatus struct {
	Shard   int      `json:"shard"`
	Owners  []string `json:"owners"` // by rendezvous over the live nodes, the primary first
	Primary string   `json:"primary,omitempty"`
	// Generation, Seq and Published describe the shard's published
	// generation (0: none yet).
	Generation uint64    `json:"generation"`
	Seq        uint64    `json:"seq"`
	Published  time.Time `json:"published,omitzero"`
	// Lag is the writes acknowledged by the stream that the published
	// generation does not hold yet.
	Lag uint64 `json:"lag"`
	// Serving is the generation each owner serves.
	Serving map[string]uint64 `json:"serving"`
}

// stuckAfter is how old a shard's published generation may be while
// writes wait for it before its lag is a problem.
const stuckAfter = 30 * time.Second

// Nodes lists the live nodes, as their keys say.
func (c *Cluster) Nodes(ctx context.Context) ([]NodeStatus, error) {
	ids, err := c.liveNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: listing its nodes: %w", c.cfg.Name, err)
	}
	var out []NodeStatus
	for _, id := range ids {
		e, err := c.nodes.Get(ctx, nodeKey(id))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // gone since the listing
		}
		if err != nil {
			return nil, err
		}
		var info NodeInfo
		if err := json.Unmarshal(e.Value(), &info); err != nil {
			return nil, fmt.Errorf("node %s: its key is not valid JSON: %w", id, err)
		}
		out = append(out, NodeStatus{NodeInfo: info, Seen: e.Created()})
	}
	return out, nil
}

// Status reads the cluster's state.
func (c *Cluster) Status(ctx context.Context) (*Status, error) {
	st := &Status{Config: c.cfg, Nodes: []NodeStatus{}, Problems: []string{}}
	infos := map[string]NodeInfo{}
	nodes, err := c.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		infos[n.ID] = n.NodeInfo
		st.Nodes = append(st.Nodes, n)
	}
	live := make([]string, 0, len(infos))
	for id := range infos {
		live = append(live, id)
	}
	slices.Sort(live)
	if len(live) == 0 {
		st.Problems = append(st.Problems, "no node is running: start one with bitsieve serve --nats URL")
	}
	pending := map[string]uint64{}
	if info, err := c.stream.Info(ctx, jetstream.WithSubjectFilter(docsWildcard(c.cfg.Name))); err == nil {
		pending = info.State.Subjects
	} else {
		st.Problems = append(st.Problems, fmt.Sprintf("the stream's state cannot be read: %v", err))
	}
	for s := range c.cfg.Shards {
		ss := ShardStatus{Shard: s, Owners: Owners(live, s, c.cfg.Replicas), Serving: map[string]uint64{}}
		if len(ss.Owners) > 0 {
			ss.Primary = ss.Owners[0]
		} else {
			st.Problems = append(st.Problems, fmt.Sprintf("shard %d has no live owner", s))
		}
		ss.Lag = pending[docsSubject(c.cfg.Name, s)]
		g, _, err := c.loadGeneration(ctx, s)
		switch {
		case errors.Is(err, errNotPublished):
			if len(ss.Owners) > 0 {
				st.Problems = append(st.Problems, fmt.Sprintf("shard %d has no published generation yet", s))
			}
		case err != nil:
			st.Problems = append(st.Problems, err.Error())
		default:
			ss.Generation, ss.Seq, ss.Published = g.Generation, g.Seq, g.Published
			if ss.Lag > 0 && time.Since(g.Published) > stuckAfter {
				st.Problems = append(st.Problems, fmt.Sprintf("shard %d: %d writes wait, and its last generation was published %s ago", s, ss.Lag, time.Since(g.Published).Round(time.Second)))
			}
		}
		for _, id := range ss.Owners {
			var served *ShardInfo
			for _, si := range infos[id].Shards {
				if si.Shard == s {
					served = &si
				}
			}
			switch {
			case served == nil:
				st.Problems = append(st.Problems, fmt.Sprintf("shard %d: node %s owns it but does not serve it yet", s, id))
			case served.Error != "":
				st.Problems = append(st.Problems, fmt.Sprintf("shard %d on node %s: %s", s, id, served.Error))
				ss.Serving[id] = served.Generation
			default:
				ss.Serving[id] = served.Generation
				if served.Generation != ss.Generation {
					st.Problems = append(st.Problems, fmt.Sprintf("shard %d: node %s serves generation %d, not the published %d", s, id, served.Generation, ss.Generation))
				}
			}
		}
		st.Shards = append(st.Shards, ss)
	}
	st.Healthy = len(st.Problems) == 0
	return st, nil
}
