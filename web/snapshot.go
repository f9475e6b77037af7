package web

import (
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// openLive serves the index in dir (or ix, opened from it) as the first
// snapshot, and keeps the server's metrics of the index and its reloads.
func openLive(dir string, ix *index.Index, s *Server, poll time.Duration) (*query.Live, error) {
	m := s.metrics
	var l *query.Live
	ready := func() {
		if _, err := l.Ready(); err != nil {
			m.ready.Set(0)
		} else {
			m.ready.Set(1)
		}
	}
	l, err := query.OpenLive(dir, query.LiveOptions{
		Index:      ix,
		Poll:       poll,
		Logger:     s.log,
		CheckStore: true,
		OnReload: func(ix *index.Index, err error) {
			ready()
			if err != nil {
				m.reloads.WithLabelValues("error").Inc()
				return
			}
			if ix != nil {
				m.observeIndex(ix)
				m.reloads.WithLabelValues("ok").Inc()
			}
		},
	})
	if err != nil {
		return nil, err
	}
	sn := l.Acquire()
	m.observeIndex(sn.Index())
	sn.Release()
	ready()
	return l, nil
}
