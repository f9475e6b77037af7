// Package cluster runs one bitsieve index on many machines, on NATS
// JetStream: a replicated log, key-value store and object store with
// request-reply, which keeps every write and every shard file on several
// servers. bitsieve adds only what a search engine must: routing
// documents to shards, indexing each shard, fanning a query out and
// merging the answers.
//
// # Shape
//
// A cluster index has a fixed number of document-partitioned shards (its
// Config, stored at creation); a document's shard is ShardOf its key.
// Each shard is an ordinary bitsieve index (segments, lexicon, MANIFEST),
// so everything that holds for one index holds per shard. Its JetStream
// resources are named after the cluster (config.go): a stream of writes
// with a subject per shard, a bucket of state (the configuration, and each
// shard's published generation), a bucket of live nodes whose keys expire,
// and an object store of shard files.
//
// # Writes
//
// A Writer puts documents and deletions on their shards' subjects, in
// batches (record.go). A write is acknowledged once the stream has stored
// it, on as many servers as Config.StreamReplicas: nothing acknowledged is
// lost when every node dies, or when one NATS server of three does. A
// text too large for a message goes to the object store first, and its
// record names it.
//
// # Nodes and shards
//
// A Node keeps its key alive in the nodes bucket; each shard is owned by
// the first Config.Replicas of the live nodes by rendezvous hashing
// (Owners), the first of them its primary. The primary reads the shard's
// subject from the sequence its published generation holds, applies the
// writes to an index.Writer over its copy, and after each commit
// publishes the generation: it uploads the files the last one lacked to
// the object store, under names of its own, and swaps the shard's key
// to the new generation with a compare-and-swap on the key's revision, so
// that of two nodes that both believe themselves primary (while the live
// set moves) only one publishes; the other drops its unpublished commits
// and starts from the published generation. Then the stream's messages
// the generation holds are purged. The other owners install each
// published generation (index.Install: the missing files, then the
// MANIFEST, atomically) and serve it. A node that takes a shard over
// installs the published generation and replays the stream from its
// sequence: the stream sequence a shard has applied is kept with its
// published generation (in the state bucket, atomically with the
// publication) rather than in the MANIFEST, since only a published
// generation counts: a commit that was never published is replayed.
//
// # Queries
//
// Any client coordinates (search.go). Each shard's owners answer on the
// shard's subject as a queue group (one of them takes each request), and
// each node on a subject of its own. A ranked search takes two rounds:
// the first gathers each shard's query.Stats (documents, tokens, each
// word's document frequency) at the generation the answering node serves;
// the second sends their sum to the same node, for the same generation
// (a node keeps a replaced generation open a while for this), and each
// shard scores with it, so that it ranks as one index holding every
// document would, to the last bit; the pages are merged with query.Merge.
// A deep page has its snippets cut in a third round, by the shards that
// hold its hits. A count takes one round. A shard whose node does not
// answer within Options.Timeout is asked of its other owners; a search
// whose shard changed generation between rounds on every owner starts
// again; a shard no owner answers is missing from a partial result,
// never counted as empty. Every answer names the generations it read.
//
// # Files
//
//	cluster.go    Open, Create, the resources
//	config.go     Config, the names of resources and subjects
//	conn.go       connecting to NATS: URLs, credentials, TLS
//	record.go     the write batch format
//	route.go      ShardOf, Owners
//	writer.go     Writer: batches, publishing, an ingest.Sink
//	node.go       Node: heartbeats, membership, shard ownership
//	shard.go      one owned shard: install, serve, follow, lead
//	indexer.go    a primary's indexing of its shard's writes
//	generation.go publishing and installing generations
//	protocol.go   the requests and replies of queries
//	serve.go      a node's answers
//	search.go     the coordinator: fan-out, retries, merge
//	read.go       Document and Explain over the shards
//	status.go     Status: nodes, shards, lag, problems
package cluster
