package inverted

import (
	"hash/crc32"

	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// The framing's sizes, for the fuzz target that repairs checksums.
const (
	headerSize = sectioned.HeaderSize
	tailSize   = sectioned.TailSize
	tableEntry = sectioned.TableEntry
	tailMagic  = "BSVTAIL1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)
