package bench

import (
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
)

// Component is a part of the on-disk index and which engine needs it.
type Component struct {
	Name   string `json:"name"`
	Engine string `json:"engine"` // "signature", "inverted" or "shared"
	Bytes  int64  `json:"bytes"`
}

// Size is the on-disk size of both engines by component.
type Size struct {
	Components []Component `json:"components"`
	// Postings is the number of (document, term) pairs: Σ df.
	Postings int64 `json:"postings"`
	// Bits per posting of each engine's own structure: signature rows (the
	// live row and row popcounts excluded) and lists (16 bits an entry, the
	// list offsets excluded), roaring bitmaps (the offset table excluded).
	SignatureBitsPerPosting float64 `json:"signature_bits_per_posting"`
	InvertedBitsPerPosting  float64 `json:"inverted_bits_per_posting"`
	SignatureBytes          int64   `json:"signature_bytes"` // shared parts + the signature's own
	InvertedBytes           int64   `json:"inverted_bytes"`  // shared parts + the postings files
}

// Component names, in report order.
const (
	CompRows       = "signature rows"
	CompRowStats   = "row popcounts"
	CompLists      = "signature lists"
	CompImpacts    = "block impacts"
	CompFreqs      = "term frequencies"
	CompFalsePos   = "false positives"
	CompLengths    = "document lengths"
	CompPostings   = "roaring postings"
	CompOffsets    = "postings offsets"
	CompDictionary = "dictionary"
	CompForward    = "forward index"
	CompPositions  = "positions"
	CompDocTable   = "doc table"
	CompDocStore   = "doc store"
	CompOther      = "headers and tables"
)

// Sizes measures ix and its postings by component.
func Sizes(ix *index.Index, inv *inverted.Index) Size {
	by := map[string]int64{}
	var sz Size
	for _, seg := range ix.Segments() {
		sections := int64(0)
		for _, sec := range seg.Sections() {
			sections += sec.Bytes
			switch sec.Name {
			case "rows":
				by[CompRows] += sec.Bytes
			case "rowstats":
				by[CompRowStats] += sec.Bytes
			case "lists":
				by[CompLists] += sec.Bytes
			case "impacts":
				by[CompImpacts] += sec.Bytes
			case "frequencies":
				by[CompFreqs] += sec.Bytes
			case "falsepositives":
				by[CompFalsePos] += sec.Bytes
			case "lengths":
				by[CompLengths] += sec.Bytes
			case "forward":
				by[CompForward] += sec.Bytes
			case "positions":
				by[CompPositions] += sec.Bytes
			case "docs":
				by[CompDocTable] += sec.Bytes
			case "blocks", "store":
				by[CompDocStore] += sec.Bytes
			default:
				by[CompOther] += sec.Bytes
			}
		}
		by[CompOther] += seg.FileBytes() - sections
	}
	st := ix.Stats()
	by[CompDictionary] += st.Sections["lexicon"] // the lexicon: every word once, both engines read it
	sz.Postings = st.Postings
	var postBytes int64
	if inv != nil {
		for _, s := range inv.Segments() {
			by[CompPostings] += s.PostingsBytes()
			by[CompOffsets] += s.FileBytes() - s.PostingsBytes()
			postBytes += s.PostingsBytes()
		}
	}
	order := []Component{
		{CompRows, "signature", 0}, {CompRowStats, "signature", 0}, {CompLists, "signature", 0}, {CompImpacts, "shared", 0}, {CompFreqs, "signature", 0}, {CompFalsePos, "signature", 0},
		{CompPostings, "inverted", 0}, {CompOffsets, "inverted", 0},
		{CompDictionary, "shared", 0}, {CompForward, "shared", 0}, {CompPositions, "shared", 0},
		{CompLengths, "shared", 0}, {CompDocTable, "shared", 0}, {CompDocStore, "shared", 0}, {CompOther, "shared", 0},
	}
	for _, c := range order {
		c.Bytes = by[c.Name]
		sz.Components = append(sz.Components, c)
		switch c.Engine {
		case "signature":
			sz.SignatureBytes += c.Bytes
		case "inverted":
			sz.InvertedBytes += c.Bytes
		default:
			sz.SignatureBytes += c.Bytes
			sz.InvertedBytes += c.Bytes
		}
	}
	if sz.Postings > 0 {
		sz.SignatureBitsPerPosting = float64(st.RowBits+st.ListBits) / float64(sz.Postings)
		sz.InvertedBitsPerPosting = float64(postBytes*8) / float64(sz.Postings)
	}
	return sz
}

// Component returns the named component's bytes.
func (s Size) Component(name string) int64 {
	for _, c := range s.Components {
		if c.Name == name {
			return c.Bytes
		}
	}
	return 0
}
