package index

import "slices"

// MinSegmentDocs is the fewest documents a segment gets when the writer can
// choose: a row is never shorter than one 512-document block, so a segment
// of a handful of documents would spend a whole cache line per row on them.
const MinSegmentDocs = 512

// classBand is the band of length classes that may share a segment: classes
// 2b and 2b+1, documents of 2^(2b-1) to 2^(2b+1)-1 distinct terms. A band
// spans a factor of four in length, so no document of a segment sets more
// than about twice the mean number of bits of its shared rows: its signature
// cannot saturate them, whatever the longest documents of the corpus are.
func classBand(c int) int { return c / 2 }

// groupLeftovers decides the segments for the class buffers left at commit:
// the classes of a band are merged into one segment (or one per class when
// they would exceed capacity), and bands are never mixed. A band whose
// leftovers are few makes a small segment; in a segment of under 256
// documents, whose rows would be mostly padding, terms get lists (Treatment).
func groupLeftovers(classes map[int]*classBuffer, capacity int) (groups [][]*analyzedDoc, class []int) {
	keys := make([]int, 0, len(classes))
	for c, b := range classes {
		if len(b.docs) > 0 {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j, total := i, 0
		for ; j < len(keys) && classBand(keys[j]) == classBand(keys[i]); j++ {
			total += len(classes[keys[j]].docs)
		}
		if total <= capacity {
			var g []*analyzedDoc
			for _, c := range keys[i:j] {
				g = append(g, classes[c].docs...)
			}
			groups, class = append(groups, g), append(class, keys[j-1])
		} else {
			for _, c := range keys[i:j] {
				groups, class = append(groups, classes[c].docs), append(class, c)
			}
		}
		i = j
	}
	return groups, class
}
