package index

import "slices"

// MinSegmentDocs is the fewest documents a segment gets when the writer can
// choose: a row is never shorter than one 512-document block, so a segment
// of a handful of documents would spend a whole cache line per row on them.
const MinSegmentDocs = 512

// groupLeftovers decides the segments for the class buffers left at commit:
// classes in ascending order are merged until a group holds MinSegmentDocs
// documents, and a final group smaller than that joins the one before it.
// Neighbouring classes differ in length by a factor of two, so a merged group
// still holds documents of similar length; only the rare longest documents
// (few, so each class of them is tiny) share a segment with shorter ones.
func groupLeftovers(classes map[int]*classBuffer) (groups [][]*analyzedDoc, class []int) {
	keys := make([]int, 0, len(classes))
	for c, b := range classes {
		if len(b.docs) > 0 {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	remaining := 0
	for _, c := range keys {
		remaining += len(classes[c].docs)
	}
	var cur []*analyzedDoc
	for _, c := range keys {
		docs := classes[c].docs
		cur = append(cur, docs...)
		remaining -= len(docs)
		if len(cur) >= MinSegmentDocs && remaining >= MinSegmentDocs {
			groups, class = append(groups, cur), append(class, c)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups, class = append(groups, cur), append(class, keys[len(keys)-1])
	}
	return groups, class
}
