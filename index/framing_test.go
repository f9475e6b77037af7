package index

import "github.com/bitsieve/bitsieve/internal/sectioned"

// The framing's sizes, for the tests that damage files region by region.
const (
	headerSize = sectioned.HeaderSize
	tailSize   = sectioned.TailSize
	tableEntry = sectioned.TableEntry
	fileMagic  = sectioned.Magic
)
