package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/remote"
)

// BenchmarkCaptureFanOut captures 50 local targets whose answers are
// delayed by 50–295 ms (target i waits 50+5i ms), all at once, and reports
// the wall time against the slowest target's delay: with enough
// concurrency the whole capture costs about the slowest target.
func BenchmarkCaptureFanOut(b *testing.B) {
	const targets = 50
	body := []byte("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:10 +0x1d\n\ngoroutine 7 [chan receive]:\nmain.worker()\n\t/src/main.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/src/main.go:30 +0x5a\n")
	var slowest time.Duration
	var jobs []*captureJob
	for i := range targets {
		delay := time.Duration(50+5*i) * time.Millisecond
		slowest = max(slowest, delay)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(delay)
			w.Write(body)
		}))
		b.Cleanup(srv.Close)
		t, err := remote.ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, &captureJob{target: t, stdout: io.Discard, stderr: io.Discard,
			pipe: pipeline{format: output.JSON, by: dedupe.ByStack, summarize: true}})
	}
	for _, conc := range []int{8, targets} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				for _, r := range captureAll(context.Background(), jobs, conc) {
					if r.err != nil {
						b.Fatal(r.err)
					}
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "wall-ms")
			b.ReportMetric(float64(slowest.Milliseconds()), "slowest-target-ms")
			b.ReportMetric(float64(total)/float64(b.N)/float64(slowest), "x-slowest")
		})
	}
}
