package segment

import "testing"

// TestTouchForward checks that reading entries ahead reads the first byte
// of each of their first cache lines and nothing past an entry's end, in a
// segment whose entries run from a few bytes to many cache lines.
func TestTouchForward(t *testing.T) {
	data, dict := buildFile(t, genDocs(300, 7, 4000), DefaultParams)
	s := openFile(t, data, dict)
	var docs []int32
	var want byte
	long := 0
	for d := range s.NumDocs() {
		docs = append(docs, int32(d))
		from, to := s.fwdOff[d], s.fwdOff[d+1]
		if to-from > touchBytes {
			long++
		}
		for off := from; off < to && off < from+touchBytes; off += 64 {
			want ^= s.fwd[off]
		}
	}
	if long == 0 {
		t.Fatal("no entry is longer than what is read ahead: the test needs longer documents")
	}
	if got := s.TouchForward(docs); got != want {
		t.Errorf("TouchForward = %#x, want %#x", got, want)
	}
}
