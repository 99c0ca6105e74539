package web

import (
	"context"
	"testing"
)

// serveTest starts s on its own listener and stops it when the test ends.
func serveTest(t *testing.T, s *Server) string {
	t.Helper()
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s.Addr()
}
