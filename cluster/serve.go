package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/bitsieve/bitsieve/query"
	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"
)

// requestTimeout bounds the work of one request on a node.
const requestTimeout = 30 * time.Second

// onRequest answers a request on a shard's subject or the node's own, on
// a goroutine of its own once a slot is free.
func (n *Node) onRequest(msg *nats.Msg) {
	select {
	case n.slots <- struct{}{}:
	case <-n.ctx.Done():
		return
	}
	go func() {
		defer func() { <-n.slots }()
		var req request
		var rep reply
		if err := json.Unmarshal(msg.Data, &req); err != nil {
			rep = reply{Node: n.id, Error: &wireError{Kind: kindInternal, Msg: "bad request: " + err.Error()}}
		} else {
			rep = n.answer(&req)
		}
		respond(msg, rep)
	}()
}

// compressFrom is the reply size from which a reply travels compressed.
const compressFrom = 256 << 10

var zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
var zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(256<<20))

// encodingHeader marks a compressed reply.
const encodingHeader = "Bitsieve-Encoding"

// respond sends rep, compressed with zstd when it is large, and as an
// error when it does not fit in a message even so.
func respond(msg *nats.Msg, rep reply) {
	out := nats.NewMsg(msg.Reply)
	out.Data = encode(rep)
	if len(out.Data) >= compressFrom {
		out.Data = zenc.EncodeAll(out.Data, nil)
		out.Header.Set(encodingHeader, "zstd")
	}
	if err := msg.RespondMsg(out); err != nil {
		rep = reply{Node: rep.Node, Shard: rep.Shard, Generation: rep.Generation,
			Error: &wireError{Kind: kindInternal, Msg: fmt.Sprintf("the answer does not fit in a message (%d bytes): ask for fewer results", len(out.Data))}}
		msg.Respond(encode(rep))
	}
}

// decodeReply decodes a reply, compressed or not.
func decodeReply(msg *nats.Msg) (*reply, error) {
	data := msg.Data
	if msg.Header.Get(encodingHeader) == "zstd" {
		var err error
		if data, err = zdec.DecodeAll(data, nil); err != nil {
			return nil, fmt.Errorf("a compressed reply does not decompress: %w", err)
		}
	}
	var rep reply
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("a reply is not valid JSON: %w", err)
	}
	return &rep, nil
}

// answer answers one request from the shard's copy.
func (n *Node) answer(req *request) reply {
	rep := reply{Node: n.id, Shard: req.Shard}
	sh := n.shardFor(req.Shard)
	if sh == nil {
		rep.Error = toWire(fmt.Errorf("%w: node %s does not own shard %d", errNotOwner, n.id, req.Shard))
		return rep
	}
	if cur := sh.acquire(0); cur != nil {
		rep.Current = cur.Index().Generation()
		cur.Release()
	}
	sn := sh.acquire(req.Generation)
	if sn == nil {
		rep.Error = toWire(fmt.Errorf("%w: node %s serves no generation %d of shard %d", errGeneration, n.id, req.Generation, req.Shard))
		return rep
	}
	defer sn.Release()
	rep.Generation = sn.Index().Generation()
	s := sn.Searcher()
	ctx, cancel := context.WithTimeout(n.ctx, requestTimeout)
	defer cancel()
	var err error
	switch req.Op {
	case opStats:
		rep.Stats, err = s.Stats(req.Query)
	case opSearch:
		rep.Result, err = s.Search(ctx, query.Request{Query: req.Query, Limit: req.Limit, CountOnly: req.CountOnly,
			Snippets: req.Snippets, Stats: req.Stats})
	case opSnippets:
		err = s.Snippets(req.Query, req.Hits)
		rep.Result = &query.Result{Query: req.Query, Hits: req.Hits}
	case opExplain:
		rep.Explain, err = s.Explain(ctx, req.Query)
	case opDocument:
		rep.Document, err = s.Document(req.Key, req.Query, req.From)
	case opKeys:
		rep.Keys, rep.More = sh.keys(sn, req)
	default:
		err = fmt.Errorf("unknown request %q", req.Op)
	}
	rep.Error = toWire(err)
	return rep
}

// acquire takes a reference to the shard's generation gen (0: the one
// served), or returns nil.
func (sh *shard) acquire(gen uint64) *query.Snapshot {
	sh.mu.Lock()
	l := sh.live
	sh.mu.Unlock()
	if l == nil {
		return nil
	}
	if gen == 0 {
		return l.Acquire()
	}
	return l.AcquireGeneration(gen)
}

// keysPage is how many documents a keys reply lists.
const keysPage = 2000

// keys lists a page of the documents of the request's sources in the
// snapshot, by key.
func (sh *shard) keys(sn *query.Snapshot, req *request) ([]DocInfo, bool) {
	want := map[uint32]bool{}
	for _, s := range req.Sources {
		want[s] = true
	}
	var out []DocInfo
	for _, seg := range sn.Index().Segments() {
		for d := range seg.NumDocs() {
			if !seg.IsLive(d) {
				continue
			}
			key := seg.DocKey(d)
			if key <= req.After {
				continue
			}
			info := seg.Doc(d)
			if !req.AllSources && !want[info.Source] {
				continue
			}
			di := DocInfo{Key: key, Source: info.Source, Title: info.Title, Size: info.Size, TextLen: info.TextLen, Hash: info.Hash}
			if !info.ModTime.IsZero() {
				di.ModTime = info.ModTime.UnixNano()
			}
			out = append(out, di)
		}
	}
	slices.SortFunc(out, func(a, b DocInfo) int { return cmp.Compare(a.Key, b.Key) })
	if len(out) > keysPage {
		return out[:keysPage], true
	}
	return out, false
}
