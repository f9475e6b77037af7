package index

import "github.com/bitsieve/bitsieve/internal/segment"

// Params are the signature parameters a writer builds segments with, and
// each segment records: Density (the target density of shared rows), SNR
// (a term's expected false positives are at most df/SNR), KMin and KMax
// (the fewest and most shared rows of a term), ListDensity (below this df/n
// a term is an exact list of documents, 0: never), Rank (the higher rank of
// shared rows, 0: rank 0 only) and PairK (the shared rows of each adjacent
// word pair, 0: no pairs). docs/format.md describes each; Validate tells
// what is out of range.
type Params = segment.Params

// DefaultParams are the parameters used when a writer is given none
// (docs/BENCHMARKS.md has the measurements that chose them).
var DefaultParams = segment.DefaultParams
