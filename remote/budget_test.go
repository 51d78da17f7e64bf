package remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// TestOpenDocumentBudgetWithoutCounts: a target that serves debug=2 and
// the trace but no debug=1 (a proxy that passes only some requests) gives
// no count to predict a traceback's pause by: under a pause budget the
// trace snapshot is taken, never debug=2.
func TestOpenDocumentBudgetWithoutCounts(t *testing.T) {
	parkedInRemoteTest(t, 20)
	var mu sync.Mutex
	var asked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("debug") == "1" {
			http.NotFound(w, r)
			return
		}
		pprof.Index(w, r)
	})
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	doc, err := OpenDocument(context.Background(), tg, Options{MaxPause: 10 * time.Millisecond}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := readDocument(t, doc)
	mu.Lock()
	defer mu.Unlock()
	if !doc.OverBudget || !slices.Equal(doc.Methods, []string{"trace"}) || d.Total < 20 || slices.Contains(asked, "debug=2") {
		t.Errorf("methods %v, over budget %v, %d goroutines, asked %v; want the trace alone, no debug=2", doc.Methods, doc.OverBudget, d.Total, asked)
	}
}
