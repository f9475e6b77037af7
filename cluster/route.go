package cluster

import (
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// ShardOf is the shard that holds the document with key: its xxhash64,
// modulo the shard count. It is part of the cluster's format: a cluster's
// documents stay where it put them.
func ShardOf(key string, shards int) int {
	return int(xxhash.Sum64String(key) % uint64(shards))
}

// Owners are the nodes that own shard s among the live nodes: the first
// replicas of them by rendezvous (highest random weight) hashing, the
// first of all being the shard's primary, which indexes its writes. A
// node that joins or leaves moves only the shards of which it is (or
// becomes) an owner.
func Owners(nodes []string, s, replicas int) []string {
	type weighted struct {
		id string
		w  uint64
	}
	ws := make([]weighted, len(nodes))
	suffix := "/" + strconv.Itoa(s)
	for i, id := range nodes {
		ws[i] = weighted{id, xxhash.Sum64String(id + suffix)}
	}
	slices.SortFunc(ws, func(a, b weighted) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		return cmpString(a.id, b.id)
	})
	out := make([]string, 0, min(replicas, len(ws)))
	for _, w := range ws[:min(replicas, len(ws))] {
		out = append(out, w.id)
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
