package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

func readDumps(t testing.TB, path string) []*stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

func jvmFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"corpus/jvm/*", "jvm/*.txt", "jvm/*.json"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

var reFoundN = regexp.MustCompile(`(?m)^Found (\d+) deadlocks?\.`)

// TestLocksAgreeWithJVM checks, on every JVM dump of the corpus, that the
// deadlocks rebuilt from the stacks are the ones the JVM reported: the same
// number as "Found N deadlocks.", the same threads, in the same wait order,
// waiting for the same objects; and none where the JVM found none. Only
// HotSpot dumps ("Full thread dump") carry such a report.
func TestLocksAgreeWithJVM(t *testing.T) {
	reports := 0
	for _, path := range jvmFiles(t) {
		if strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".md") {
			continue // the JVM writes no deadlock report in JSON dumps
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "Full thread dump") {
				return // Thread.dump_to_file and ThreadInfo dumps carry no JVM deadlock report
			}
			var want []int
			for _, m := range reFoundN.FindAllSubmatch(data, -1) {
				n, _ := strconv.Atoi(string(m[1]))
				want = append(want, n)
			}
			withSync := strings.Contains(string(data), "Locked ownable synchronizers")
			dumps := readDumps(t, path)
			if len(want) > 0 && len(want) != len(dumps) {
				t.Fatalf("%d reports for %d dumps", len(want), len(dumps))
			}
			for i, d := range dumps {
				rep := Locks(d)
				n := 0
				if len(want) > 0 {
					n = want[i]
					reports++
				}
				if rep.ReportedCount != n || len(rep.Reported) != n {
					t.Errorf("dump %d: parsed report count %d with %d sections, file says %d", i+1, rep.ReportedCount, len(rep.Reported), n)
				}
				if len(rep.Deadlocks) != n {
					t.Errorf("dump %d: found %d deadlocks, the JVM found %d", i+1, len(rep.Deadlocks), n)
				}
				matchReported(t, rep)
				for _, dl := range rep.Deadlocks {
					for _, lk := range dl.Locks {
						if withSync && lk.OwnerFrom != OwnerFromDump {
							t.Errorf("owner of %s taken from the JVM report although the dump lists ownable synchronizers", lk)
						}
					}
				}
			}
		})
	}
	if reports < 8 {
		t.Errorf("only %d dumps with a deadlock report checked", reports)
	}
}

// matchReported pairs each found deadlock with a reported one of the
// same threads, and checks wait order and objects.
func matchReported(t *testing.T, rep *LockReport) {
	t.Helper()
	used := make([]bool, len(rep.Reported))
	for _, dl := range rep.Deadlocks {
		names := make([]string, len(dl.Routines))
		for i, r := range dl.Routines {
			names[i] = r.Name
		}
		found := false
		for j, rd := range rep.Reported {
			if used[j] || !sameSet(names, rd.Names()) {
				continue
			}
			byName := make(map[string]ReportedThread)
			for _, th := range rd.Threads {
				byName[th.Name] = th
			}
			ok := true
			for i, r := range dl.Routines {
				th := byName[r.Name]
				nextName := dl.Routines[(i+1)%len(dl.Routines)].Name
				if th.HeldBy != nextName || th.Addr != dl.Locks[i].Addr {
					ok = false
				}
			}
			if ok {
				used[j], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("deadlock %v is not in the JVM's report", names)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func routineNames(rs []*stack.Routine) []string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	return names
}

// TestLocksThreadInfo checks owners, blockers and deadlocks on the real
// ThreadInfo.toString dump of LockScenarios, whose design is known.
func TestLocksThreadInfo(t *testing.T) {
	d := readDumps(t, "../testdata/jvm/threadinfo_jdk17.0.15.txt")[0]
	checkLockScenarios(t, Locks(d))
}

// checkLockScenarios checks a report on a dump of testdata/gen/jvm/LockScenarios.java.
func checkLockScenarios(t *testing.T, rep *LockReport) {
	t.Helper()
	var cycles [][]string
	for _, dl := range rep.Deadlocks {
		cycles = append(cycles, routineNames(dl.Routines))
	}
	want := [][]string{{"monitor-1", "monitor-2"}, {"juc-1", "juc-2"}}
	if len(cycles) != 2 || !slices.Equal(cycles[0], want[0]) || !slices.Equal(cycles[1], want[1]) {
		t.Errorf("deadlocks %v, want %v", cycles, want)
	}
	if len(rep.Blockers) < 2 {
		t.Fatalf("%d blockers", len(rep.Blockers))
	}
	top := rep.Blockers[0]
	if top.Owner == nil || top.Owner.Name != "holder" || !slices.Equal(routineNames(top.Blocked), []string{"contender-1", "contender-2", "contender-3"}) {
		t.Errorf("top blocker %s owned by %v, blocked %v", top, top.Owner, routineNames(top.Blocked))
	}
	second := rep.Blockers[1]
	if second.Owner == nil || second.Owner.Name != "lock-owner" || len(second.Blocked) != 2 || !strings.Contains(second.Class, "ReentrantLock") {
		t.Errorf("second blocker %s owned by %v, blocked %v", second, second.Owner, routineNames(second.Blocked))
	}
	// The waiter released its monitor in Object.wait().
	for _, lk := range rep.Locks {
		if slices.Contains(routineNames(lk.Waiting), "waiter") {
			if lk.Owner != nil {
				t.Errorf("%s waited on by waiter is owned by %s", lk, lk.Owner.Name)
			}
			return
		}
	}
	t.Error("waiter's monitor not found")
}

// TestLocksJSON checks the JDK 25 JSON relations: blockedOn with
// monitorsOwned, and parkBlocker owners.
func TestLocksJSON(t *testing.T) {
	d := readDumps(t, "../testdata/jvm/jdk25_dump_to_file_handmade.json")[0]
	rep := Locks(d)
	var cycles [][]string
	for _, dl := range rep.Deadlocks {
		cycles = append(cycles, routineNames(dl.Routines))
	}
	if len(cycles) != 2 || !slices.Equal(cycles[0], []string{"monitor-1", "monitor-2"}) || !slices.Equal(cycles[1], []string{"juc-1", "juc-2"}) {
		t.Errorf("deadlocks %v", cycles)
	}
	for _, lk := range rep.Locks {
		if lk.Class == "java.util.concurrent.CountDownLatch$Sync" && (lk.Owner != nil || slices.Contains(rep.Blockers, lk)) {
			t.Errorf("a latch has no owner and blocks no one in particular: %+v", lk)
		}
	}
}

// TestLocksRules checks the ownership rules on small hand-built dumps.
func TestLocksRules(t *testing.T) {
	tab := stack.NewTable()
	frame := tab.Frame(stack.Frame{Func: "demo.Main.run", File: "Main.java", Line: 1})
	routine := func(name string, locks ...stack.Lock) *stack.Routine {
		r := &stack.Routine{Name: name, Count: 1, Stack: tab.Stack([]*stack.Frame{frame}, stack.Elision{}), Thread: &stack.Thread{}}
		r.Values = tab.Values([]stack.FrameValue{{Locks: locks}})
		return r
	}
	lock := func(kind stack.LockKind, addr string) stack.Lock {
		return stack.Lock{Kind: kind, Addr: addr, Class: "java.lang.Object"}
	}
	t.Run("relock after wait does not own", func(t *testing.T) {
		d := &stack.Dump{Routines: []*stack.Routine{
			routine("woken", lock(stack.LockWaitEnter, "0x1"), lock(stack.LockHeld, "0x1")),
			routine("owner", lock(stack.LockHeld, "0x1")),
		}}
		rep := Locks(d)
		if len(rep.Locks) != 1 || rep.Locks[0].Owner == nil || rep.Locks[0].Owner.Name != "owner" {
			t.Errorf("owner %+v", rep.Locks[0])
		}
		if len(rep.Deadlocks) != 0 || len(rep.Blockers) != 1 {
			t.Errorf("deadlocks %d blockers %d", len(rep.Deadlocks), len(rep.Blockers))
		}
	})
	t.Run("chain is not a cycle", func(t *testing.T) {
		d := &stack.Dump{Routines: []*stack.Routine{
			routine("a", lock(stack.LockWaitEnter, "0x1")),
			routine("b", lock(stack.LockWaitEnter, "0x2"), lock(stack.LockHeld, "0x1")),
			routine("c", lock(stack.LockHeld, "0x2")),
		}}
		if rep := Locks(d); len(rep.Deadlocks) != 0 || len(rep.Blockers) != 2 {
			t.Errorf("deadlocks %d blockers %d", len(rep.Deadlocks), len(rep.Blockers))
		}
	})
	t.Run("three-way cycle starts at the first routine", func(t *testing.T) {
		d := &stack.Dump{Routines: []*stack.Routine{
			routine("x", lock(stack.LockWaitEnter, "0x3"), lock(stack.LockHeld, "0x4")),
			routine("c", lock(stack.LockWaitEnter, "0x1"), lock(stack.LockHeld, "0x3")),
			routine("a", lock(stack.LockWaitEnter, "0x2"), lock(stack.LockHeld, "0x1")),
			routine("b", lock(stack.LockWaitEnter, "0x3"), lock(stack.LockHeld, "0x2")),
		}}
		rep := Locks(d)
		if len(rep.Deadlocks) != 1 || !slices.Equal(routineNames(rep.Deadlocks[0].Routines), []string{"c", "a", "b"}) {
			t.Fatalf("deadlocks %+v", rep.Deadlocks)
		}
		if got := rep.Deadlocks[0].Locks[0].Addr; got != "0x1" {
			t.Errorf("c waits for %s", got)
		}
		if top := rep.Blockers[0]; top.Addr != "0x3" || len(top.Blocked) != 2 {
			t.Errorf("top blocker %s with %d blocked", top, len(top.Blocked))
		}
	})
	t.Run("goroutines have no locks", func(t *testing.T) {
		d := &stack.Dump{Routines: []*stack.Routine{{ID: 1, Count: 1, State: "chan receive"}}}
		if rep := Locks(d); len(rep.Locks)+len(rep.Deadlocks)+len(rep.Blockers) != 0 {
			t.Errorf("%+v", rep)
		}
	})
}

// TestLocksOwnersFromJVMReport: plain jstack lists no ownable
// synchronizers, so the ReentrantLock owners of the j.u.c deadlock come
// from the JVM's report while the monitor owners come from the stacks.
func TestLocksOwnersFromJVMReport(t *testing.T) {
	d := readDumps(t, "../testdata/corpus/jvm/local_jdk17.0.15-jstack-plain.txt")[0]
	rep := Locks(d)
	if len(rep.Deadlocks) != 2 {
		t.Fatalf("%d deadlocks", len(rep.Deadlocks))
	}
	for _, dl := range rep.Deadlocks {
		for _, lk := range dl.Locks {
			want := OwnerFromDump
			if strings.Contains(lk.Class, "ReentrantLock") {
				want = OwnerFromJVMReport
			}
			if lk.OwnerFrom != want {
				t.Errorf("%s owner from %s, want %s", lk, lk.OwnerFrom, want)
			}
		}
	}
}

// One definition of blocked: a thread waits to acquire a lock (BLOCKED on
// a monitor, or parked on a lock's synchronizer); threads parked on a
// condition (four idle pool workers, a queue taker) wait for a signal
// and are Parked, not Blocked, and block no one.
func TestBlockedIsAcquiring(t *testing.T) {
	d := readDumps(t, "../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")[0]
	rep := Locks(d)
	var blocked, parked []string
	for _, lk := range rep.Locks {
		for _, r := range lk.Blocked {
			blocked = append(blocked, r.Name)
		}
		for _, r := range lk.Parked {
			parked = append(parked, r.Name)
		}
	}
	slices.Sort(blocked)
	slices.Sort(parked)
	if !slices.Equal(blocked, []string{"dl-juc-1", "dl-juc-2", "dl-monitor-1", "dl-monitor-2"}) {
		t.Errorf("blocked %q; want the four deadlocked threads", blocked)
	}
	if !slices.Equal(parked, []string{"pool-1-thread-1", "pool-1-thread-2", "pool-1-thread-3", "pool-1-thread-4", "queue-taker"}) {
		t.Errorf("parked %q", parked)
	}
	for _, lk := range rep.Blockers {
		if len(lk.Parked) > 0 {
			t.Errorf("a blocker of parked threads: %s", lk)
		}
	}
}

// JDK 11 prints "waiting to re-lock in wait()" where it printed "locked"
// under Object.wait, for threads that are WAITING in it: they are
// waiters, not blocked, and no lock is a blocker with an unknown owner
// (a real jstack -l of OpenJDK 11.0.4, testdata/judged/files).
func TestJDK11ReLockInWaitIsNotBlocked(t *testing.T) {
	dumps := readDumps(t, filepath.Join("..", "testdata", "judged", "files", "jdk11-object-wait.txt"))
	rep := Locks(dumps[0])
	var waiting []string
	for _, lk := range rep.Locks {
		if len(lk.Blocked) > 0 {
			t.Errorf("%s: blocked %d", lk, len(lk.Blocked))
		}
		for _, r := range lk.Waiting {
			waiting = append(waiting, r.Name)
		}
	}
	slices.Sort(waiting)
	if !slices.Equal(waiting, []string{"Common-Cleaner", "Finalizer"}) || len(rep.Blockers) != 0 {
		t.Errorf("waiting %q, blockers %d", waiting, len(rep.Blockers))
	}
	s := Summarize(dumps[0], nil, Options{})
	var b bytes.Buffer
	WriteText(&b, s, TextOptions{})
	if strings.Contains(b.String(), "Top blockers") || !strings.Contains(b.String(), "no threads blocked on a held lock") {
		t.Errorf("text:\n%s", b.String())
	}
}
