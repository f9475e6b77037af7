package segment

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/bitsieve/bitsieve/tokenize"
)

// DocOrder is the order in which Reseal lays out a segment's documents.
// Document order decides how documents cluster in the 512-document blocks a
// query visits and in the 256-document chunks of a list: documents that share
// terms and sit together make lists denser and let more blocks be skipped.
type DocOrder int

const (
	// OrderKept keeps the order documents were indexed in: directory walk
	// (path) order, or the order of a JSONL file.
	OrderKept DocOrder = iota
	// OrderShuffled shuffles documents at random (seeded): the baseline that
	// shows what clustering is worth.
	OrderShuffled
	// OrderMinHash sorts documents by two MinHash values of their term sets,
	// so documents with much vocabulary in common tend to sit together.
	OrderMinHash
)

var docOrderNames = []string{"kept", "shuffled", "minhash"}

func (o DocOrder) String() string {
	if int(o) < len(docOrderNames) {
		return docOrderNames[o]
	}
	return fmt.Sprintf("DocOrder(%d)", int(o))
}

// ParseDocOrder reads a DocOrder by name.
func ParseDocOrder(s string) (DocOrder, error) {
	if i := slices.Index(docOrderNames, s); i >= 0 {
		return DocOrder(i), nil
	}
	return 0, fmt.Errorf("unknown document order %q (kept, shuffled or minhash)", s)
}

// Reorder puts docs in order o; seed drives OrderShuffled.
func Reorder(docs []*Doc, o DocOrder, seed uint64) {
	switch o {
	case OrderShuffled:
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		r.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
	case OrderMinHash:
		// Two MinHash values of each document's terms: the smallest term
		// hash, and the smallest under a second (multiplicative) hash. Two
		// documents share a value with probability their Jaccard
		// similarity, so sorting by the pair groups similar documents.
		type keyed struct {
			k1, k2 uint64
			d      *Doc
		}
		ks := make([]keyed, len(docs))
		for i, d := range docs {
			k := keyed{k1: ^uint64(0), k2: ^uint64(0), d: d}
			for _, t := range d.Terms {
				h := tokenize.Hash(t.Term)
				k.k1 = min(k.k1, h)
				k.k2 = min(k.k2, h*0x9e3779b97f4a7c15)
			}
			ks[i] = k
		}
		slices.SortStableFunc(ks, func(a, b keyed) int {
			switch {
			case a.k1 != b.k1:
				return cmpU64(a.k1, b.k1)
			default:
				return cmpU64(a.k2, b.k2)
			}
		})
		for i, k := range ks {
			docs[i] = k.d
		}
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
