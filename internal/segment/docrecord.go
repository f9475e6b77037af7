package segment

import "encoding/binary"

// docRecord is one record of a segment's document table, in place
// (docRecordSize, build.go, gives the layout).
type docRecord []byte

// docRecord returns the record of doc.
func (s *Segment) docRecord(doc int) docRecord {
	return docRecord(s.docRecs[doc*docRecordSize : (doc+1)*docRecordSize])
}

func (r docRecord) size() int64      { return int64(binary.LittleEndian.Uint64(r)) }
func (r docRecord) mtime() int64     { return int64(binary.LittleEndian.Uint64(r[8:])) }
func (r docRecord) hash() uint64     { return binary.LittleEndian.Uint64(r[16:]) }
func (r docRecord) strOff() uint64   { return binary.LittleEndian.Uint64(r[24:]) }
func (r docRecord) keyLen() uint64   { return uint64(binary.LittleEndian.Uint32(r[32:])) }
func (r docRecord) titleLen() uint64 { return uint64(binary.LittleEndian.Uint32(r[36:])) }
func (r docRecord) tokens() int      { return int(binary.LittleEndian.Uint32(r[40:])) }
func (r docRecord) distinct() int    { return int(binary.LittleEndian.Uint32(r[44:])) }
func (r docRecord) block() int       { return int(binary.LittleEndian.Uint32(r[48:])) }
func (r docRecord) blockOff() int    { return int(binary.LittleEndian.Uint32(r[52:])) }
func (r docRecord) textLen() int     { return int(binary.LittleEndian.Uint32(r[56:])) }
func (r docRecord) source() uint32   { return binary.LittleEndian.Uint32(r[60:]) }

// key is the record's key in the string blob strs.
func (r docRecord) key(strs []byte) []byte {
	off := r.strOff()
	return strs[off : off+r.keyLen()]
}

// title is the record's title in the string blob strs.
func (r docRecord) title(strs []byte) []byte {
	off := r.strOff() + r.keyLen()
	return strs[off : off+r.titleLen()]
}
