package cluster

import (
	"strings"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/query"
)

// statsCache keeps, for each shard, the statistics that the first rounds
// of searches gathered, at the generation they were read from: the live
// documents and tokens, the document frequency of each word met, and the
// prefixes whose every word is among them. A search whose words are all
// known for every shard's last generation sends its one round at once,
// pinned to those generations, with the sum; that is the two rounds'
// answer for the same generations. A node answers with the generation it
// serves now, and a shard whose generation moved on is forgotten; and a
// shard's generation is only used for cacheFresh after a node last said
// it was the one it served. So a search over a cluster written by others
// reads generations at most that old (each whole and exact: replaced
// generations stay open on their nodes), as a search on one machine reads
// the snapshot it opened; a Writer's Flush forgets everything, so that
// this client's own writes are seen by its next search once they are
// indexed.
type statsCache struct {
	mu     sync.Mutex
	shards []shardStats
}

// shardStats is what statsCache knows of one shard.
type shardStats struct {
	gen      uint64    // 0: nothing known
	seen     time.Time // when a node last said it served gen
	docs     int64
	tokens   int64
	df       map[string]int64
	prefixes map[string]bool // prefixes all of whose words df holds
}

// cacheFresh is how long a shard's generation is taken for the one it
// serves after a node last said so.
const cacheFresh = time.Second

// maxCachedWords bounds the words statsCache holds for a shard; past it the
// shard's entry starts afresh.
const maxCachedWords = 1 << 16

// queryWords lists the analyzed words and the prefixes of a parsed query.
func queryWords(root query.Node) (words, prefixes []string) {
	query.Walk(root, func(n query.Node, _ bool) bool {
		switch x := n.(type) {
		case *query.Term:
			words = append(words, x.Term)
		case *query.Phrase:
			words = append(words, x.Terms...)
		case *query.Prefix:
			prefixes = append(prefixes, x.Prefix)
		}
		return true
	})
	return words, prefixes
}

// sum is the summed statistics of words and prefixes over every shard, and
// each shard's generation, if every shard knows them all.
func (sc *statsCache) sum(shards int, words, prefixes []string) (*query.Stats, []uint64, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.shards) != shards {
		return nil, nil, false
	}
	sum := &query.Stats{DF: make(map[string]int64, len(words))}
	gens := make([]uint64, shards)
	for s := range sc.shards {
		st := &sc.shards[s]
		if st.gen == 0 || time.Since(st.seen) > cacheFresh {
			return nil, nil, false
		}
		gens[s] = st.gen
		sum.Docs += st.docs
		sum.Tokens += st.tokens
		added := make(map[string]bool, len(words))
		for _, w := range words {
			df, ok := st.df[w]
			if !ok {
				return nil, nil, false
			}
			if !added[w] {
				added[w] = true
				sum.DF[w] += df
			}
		}
		for _, p := range prefixes {
			if !st.prefixes[p] {
				return nil, nil, false
			}
			for w, df := range st.df {
				if df > 0 && !added[w] && strings.HasPrefix(w, p) {
					added[w] = true
					sum.DF[w] += df
				}
			}
		}
	}
	return sum, gens, true
}

// learn records the statistics shard s gave, at generation gen, for a
// query with these prefixes.
func (sc *statsCache) learn(shards, s int, gen uint64, st *query.Stats, prefixes []string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.shards) != shards {
		sc.shards = make([]shardStats, shards)
	}
	e := &sc.shards[s]
	if e.gen != gen || len(e.df) > maxCachedWords {
		*e = shardStats{gen: gen, df: map[string]int64{}, prefixes: map[string]bool{}}
	}
	e.docs, e.tokens, e.seen = st.Docs, st.Tokens, time.Now()
	for w, df := range st.DF {
		e.df[w] = df
	}
	for _, p := range prefixes {
		e.prefixes[p] = true
	}
}

// served records that a node of shard s serves generation gen now: the
// shard's entry is fresh again, or forgotten if its generation moved on.
func (sc *statsCache) served(s int, gen uint64) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s >= len(sc.shards) {
		return
	}
	if sc.shards[s].gen != gen {
		sc.shards[s] = shardStats{}
		return
	}
	sc.shards[s].seen = time.Now()
}

// reset forgets everything.
func (sc *statsCache) reset() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.shards = nil
}
