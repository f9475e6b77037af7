package segment

import "github.com/bitsieve/bitsieve/tokenize"

func termHash(term string) uint64 { return tokenize.Hash(term) }
