//go:build linux && (amd64 || arm64)

package bench

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/livechild"
)

// BenchmarkPid reads every goroutine of a live Go program
// (testdata/gen/ticktarget, N parked goroutines) and measures what each
// way costs it, by its own ticker (a thread that sleeps 200 µs at a time
// and records its longest gap, less the sleep): the stall. Beside
// stackdump's pid: reads, in the same run: the program's own debug=2
// (net/http/pprof, in-process: stops the world for the traceback), gcore
// (gdb stops the process while it writes the core), and the ticker's gap
// with nothing done (the machine's noise floor over a comparable window).
//
//	BenchmarkPid/10k/consistent   capture pid: with no pause budget: one instant
//	BenchmarkPid/10k/nonstop      the read that never stops the program (goproc.ProcessOptions.NoStop)
//	BenchmarkPid/10k/maxpause10ms capture pid: --max-pause 10ms (consistent when it fits, else never stopped)
//	BenchmarkPid/10k/debug2       GET /debug/pprof/goroutine?debug=2 of the program itself
//	BenchmarkPid/10k/gcore        gcore PID
//	BenchmarkPid/10k/idle         nothing, for as long as the consistent read took
//
// Metrics: stall-ms (the longest gap of the op, the worst op),
// stall-oncpu-ms (the same less the time the ticker waited for a CPU, by
// its schedstat: what a stop cost it, without a busy machine's scheduling
// delay), wall-ms (per op), goroutines (read), core-MB (gcore).
func BenchmarkPid(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		if !wantSize(n) {
			continue
		}
		b.Run(SizeName(n), func(b *testing.B) {
			ctx := context.Background()
			tk := livechild.StartTick(ctx, b, "-goroutines", strconv.Itoa(n), "-pprof")
			var lastWall time.Duration
			run := func(name string, op func(b *testing.B) (goroutines int, extra map[string]float64)) {
				b.Run(name, func(b *testing.B) {
					var stall, stallCPU, wall time.Duration
					var goroutines int
					extra := map[string]float64{}
					for range b.N {
						time.Sleep(20 * time.Millisecond) // let the last op's work settle
						tk.Number(b, "gap")
						tk.Number(b, "gapcpu")
						start := time.Now()
						g, ex := op(b)
						wall += time.Since(start)
						stall = max(stall, time.Duration(tk.Number(b, "gap")))
						stallCPU = max(stallCPU, time.Duration(tk.Number(b, "gapcpu")))
						goroutines = g
						for k, v := range ex {
							extra[k] = max(extra[k], v) // the worst op, as the stall
						}
					}
					b.ReportMetric(float64(stall)/1e6, "stall-ms")
					b.ReportMetric(float64(stallCPU)/1e6, "stall-oncpu-ms")
					b.ReportMetric(float64(wall)/1e6/float64(b.N), "wall-ms")
					if goroutines > 0 {
						b.ReportMetric(float64(goroutines), "goroutines")
					}
					for k, v := range extra {
						b.ReportMetric(v, k)
					}
					lastWall = wall / time.Duration(b.N)
				})
			}
			run("consistent", func(b *testing.B) (int, map[string]float64) {
				pr, err := goproc.ReadProcess(ctx, tk.PID, goproc.ProcessOptions{})
				if err != nil {
					b.Fatal(err)
				}
				failed := 0.0
				if !pr.Stats.Stopped {
					// Its threads did not all stop in time (a saturated
					// machine): read without stopping it, as capture does.
					b.Logf("not read at one instant: %v", pr.StopFailed)
					failed = 1
				}
				return len(pr.Dump.Routines), map[string]float64{"stall-own-ms": float64(pr.Stats.Stall) / 1e6, "stop-failed": failed}
			})
			idle := max(lastWall, 10*time.Millisecond)
			run("idle", func(b *testing.B) (int, map[string]float64) {
				time.Sleep(idle)
				return 0, nil
			})
			run("nonstop", func(b *testing.B) (int, map[string]float64) {
				pr, err := goproc.ReadProcess(ctx, tk.PID, goproc.ProcessOptions{NoStop: true})
				if err != nil {
					b.Fatal(err)
				}
				return len(pr.Dump.Routines), nil
			})
			run("maxpause10ms", func(b *testing.B) (int, map[string]float64) {
				pr, err := goproc.ReadProcess(ctx, tk.PID, goproc.ProcessOptions{MaxPause: 10 * time.Millisecond})
				if err != nil {
					b.Fatal(err)
				}
				stopped := 0.0
				if pr.Stats.Stopped {
					stopped = 1
				}
				return len(pr.Dump.Routines), map[string]float64{"stopped": stopped}
			})
			run("debug2", func(b *testing.B) (int, map[string]float64) {
				resp, err := http.Get("http://" + tk.Pprof + "/debug/pprof/goroutine?debug=2")
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(make([]byte, 1<<20), 1<<20)
				g := 0
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "goroutine ") {
						g++
					}
				}
				return g, nil
			})
			gcore, err := exec.LookPath("gcore")
			if err != nil {
				b.Logf("gcore is not installed (apt-get install gdb): no gcore row")
				return
			}
			run("gcore", func(b *testing.B) (int, map[string]float64) {
				dir := b.TempDir()
				out, err := exec.Command(gcore, "-o", filepath.Join(dir, "core"), strconv.Itoa(tk.PID)).CombinedOutput()
				path := filepath.Join(dir, "core."+strconv.Itoa(tk.PID))
				fi, serr := os.Stat(path)
				if err != nil || serr != nil {
					b.Fatalf("gcore: %v, %v\n%s", err, serr, out)
				}
				os.Remove(path)
				return 0, map[string]float64{"core-MB": float64(fi.Size()) / 1e6}
			})
		})
	}
}
