package report

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// jstackLockScenarios runs testdata/gen/jvm/LockScenarios.java (a
// monitor deadlock, a ReentrantLock deadlock, three threads blocked on a
// monitor a sleeping thread holds, two parked on a held ReentrantLock, a
// thread in Object.wait) and returns its `jstack -l`.
func jstackLockScenarios(t *testing.T) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := livechild.StartJava(ctx, t, "LockScenarios")
	jstack, err := exec.LookPath("jstack")
	if err != nil {
		t.Skip("jstack is not installed")
	}
	out, err := exec.CommandContext(ctx, jstack, "-l", p.PID).Output()
	if err != nil || !bytes.Contains(out, []byte("Found 2 deadlocks.")) {
		t.Fatalf("jstack -l %s: %v\n%s", p.PID, err, out)
	}
	return out
}

// threadNames lists the names of threads of the lock analysis.
func threadNames(ts []threadDoc) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// checkLockDoc checks a dump's lock analysis against LockScenarios'
// design, and that every thread links to the group that holds it.
func checkLockDoc(t *testing.T, doc *pageDoc, in inputDoc) {
	t.Helper()
	l := in.Locks
	if l == nil {
		t.Fatal("no lock analysis in the page data")
	}
	var cycles [][]string
	for _, d := range l.Deadlocks {
		var names []string
		for _, s := range d.Steps {
			names = append(names, s.Thread.Name)
			if !strings.HasPrefix(s.Lock, "<0x") || s.Thread.Frame == nil {
				t.Errorf("step %+v: want the lock it waits for and its frame", s)
			}
		}
		cycles = append(cycles, names)
	}
	if !slices.Equal(cycles[0], []string{"monitor-1", "monitor-2"}) || !slices.Equal(cycles[1], []string{"juc-1", "juc-2"}) || l.Reported != 2 {
		t.Errorf("deadlocks %v (the JVM reported %d)", cycles, l.Reported)
	}
	byOwner := map[string]lockDoc{}
	for _, lk := range l.Locks {
		if lk.Owner != nil {
			byOwner[lk.Owner.Name] = lk
		}
		for _, th := range append(append([]threadDoc{}, lk.Blocked...), lk.Waiting...) {
			checkThreadGroup(t, in, th)
		}
		if lk.Owner != nil {
			checkThreadGroup(t, in, *lk.Owner)
		}
	}
	hot := byOwner["holder"]
	if !slices.Equal(threadNames(hot.Blocked), []string{"contender-1", "contender-2", "contender-3"}) || hot.BlockedCount != 3 ||
		hot.Owner.State != "TIMED_WAITING (sleeping)" || hot.Owner.Frame == nil || doc.Strings[doc.Frames[*hot.Owner.Frame][0]] != "LockScenarios.sleepForever" {
		t.Errorf("the hot monitor: %+v, owner %+v", hot, hot.Owner)
	}
	busy := byOwner["lock-owner"]
	if busy.BlockedCount != 2 || !strings.Contains(busy.Lock, "ReentrantLock") {
		t.Errorf("the busy ReentrantLock: %+v", busy)
	}
	for _, name := range []string{"monitor-1", "monitor-2", "juc-1", "juc-2"} {
		if lk, ok := byOwner[name]; !ok || !lk.Deadlocked || lk.BlockedCount != 1 {
			t.Errorf("lock held by %s: %+v; want a deadlocked lock one thread waits for", name, lk)
		}
	}
	if !l.Locks[0].Deadlocked {
		t.Errorf("first lock %+v; deadlocked locks come first", l.Locks[0])
	}
	waited := false
	for _, lk := range l.Locks {
		if slices.Equal(threadNames(lk.Waiting), []string{"waiter"}) {
			waited = lk.Owner == nil && lk.WaitingCount == 1
		}
	}
	if !waited {
		t.Error("the monitor the waiter waits on is not listed without an owner")
	}
}

// checkThreadGroup checks that th links to a group of in that holds it.
func checkThreadGroup(t *testing.T, in inputDoc, th threadDoc) {
	t.Helper()
	if th.Group < 0 || th.Group >= len(in.Groups) {
		t.Errorf("thread %q links to group %d", th.Name, th.Group)
		return
	}
	g := in.Groups[th.Group]
	if !slices.Contains(g.IDs, th.ID) || (g.Count == 1 && g.Name != th.Name) {
		t.Errorf("thread %q (#%d) links to group %d (ids %v, name %q)", th.Name, th.ID, th.Group, g.IDs, g.Name)
	}
}

// The page data of a real jstack -l with both kinds of deadlock: each
// cycle of threads and locks, and every lock with waiters, its holder
// and its waiters, each thread linked to its group.
func TestPageDataLocksLiveJVM(t *testing.T) {
	out := jstackLockScenarios(t)
	inputs, err := Read(bytes.NewReader(out), "jstack.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	doc := pageData(t, writeReport(t, inputs, Options{}))
	checkLockDoc(t, doc, doc.Inputs[0])

	// The same from an Input without Read: the dump's own routines.
	d, err := readAllJVM(out)
	if err != nil {
		t.Fatal(err)
	}
	doc = pageData(t, writeReport(t, []Input{{Name: "mem", Dump: d}}, Options{}))
	checkLockDoc(t, doc, doc.Inputs[0])
}

// In Chromium, the report of a real jstack -l opens with both deadlock
// cycles (threads, the locks they wait for, who holds them) and lists
// the locks with waiters, every thread a link to its group.
func TestBrowserLocksLiveJVM(t *testing.T) {
	b := findBrowser(t)
	out := jstackLockScenarios(t)
	inputs, err := Read(bytes.NewReader(out), "jstack.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	shot := artifact(t, "report-locks.png")
	dom := b.load(t, page, "", shot)
	keepShot(t, shot)

	banner := regexp.MustCompile(`(?s)<div class="banner bad deadlocks" data-deadlocks="(\d+)">(.*?)</div>`).FindStringSubmatch(dom)
	if banner == nil || banner[1] != "2" {
		t.Fatalf("no deadlock banner for 2 cycles in the page")
	}
	if !strings.Contains(banner[2], "(the JVM reported 2)") {
		t.Errorf("the banner does not say what the JVM reported: %s", banner[2])
	}
	cycles := regexp.MustCompile(`(?s)<ol class="cycle" data-cycle="(\d)">(.*?)</ol>`).FindAllStringSubmatch(banner[2], -1)
	if len(cycles) != 2 {
		t.Fatalf("%d cycles drawn", len(cycles))
	}
	step := regexp.MustCompile(`(?s)<li class="step">(.*?)</li>`)
	link := regexp.MustCompile(`<a class="glink thread" href="#group=([0-9a-f]+)" data-group="(\d+)"[^>]*>&#34;([^&]*)&#34;</a>|<a class="glink thread" href="#group=([0-9a-f]+)" data-group="(\d+)"[^>]*>"([^"]*)"</a>`)
	for ci, want := range [][]string{{"monitor-1", "monitor-2"}, {"juc-1", "juc-2"}} {
		steps := step.FindAllStringSubmatch(cycles[ci][2], -1)
		if len(steps) != 2 {
			t.Fatalf("cycle %d: %d steps", ci, len(steps))
		}
		for si, st := range steps {
			links := link.FindAllStringSubmatch(st[1], -1)
			text := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(st[1], ""))
			// "a" STATE at F  waits for <lock>  held by "b"
			if len(links) != 2 || !strings.Contains(text, " waits for <0x") || !strings.Contains(text, " held by ") {
				t.Errorf("cycle %d step %d: %q", ci, si, text)
				continue
			}
			who, held := linkName(links[0]), linkName(links[1])
			if who != want[si] || held != want[(si+1)%2] {
				t.Errorf("cycle %d step %d: %q waits for a lock held by %q; want %q and %q", ci, si, who, held, want[si], want[(si+1)%2])
			}
			for _, l := range links {
				gi, key := linkGroup(l)
				if gi >= len(doc.Inputs[0].Groups) || doc.Inputs[0].Groups[gi].Key != key {
					t.Errorf("link to group %d, key %s: not that group's", gi, key)
				}
			}
		}
	}

	if !regexp.MustCompile(`<section id="locks">`).MatchString(dom) {
		t.Fatal("the Locks section is hidden")
	}
	row := func(owner string) string {
		for _, m := range regexp.MustCompile(`(?s)<tr( class="deadlocked")? data-lock="[^"]*">(.*?)</tr>`).FindAllStringSubmatch(dom, -1) {
			if tds := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(m[2], -1); len(tds) == 4 && strings.Contains(tds[1][1], owner) {
				return html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[0], "|"))
			}
		}
		return ""
	}
	hot := row(`"holder"`)
	for _, want := range []string{`"holder"`, "TIMED_WAITING (sleeping)", "LockScenarios.sleepForever", "|3|", `"contender-1"`, `"contender-2"`, `"contender-3"`} {
		if !strings.Contains(hot, want) {
			t.Errorf("the hot monitor's row lacks %q: %s", want, hot)
		}
	}
	if busy := row(`"lock-owner"`); !strings.Contains(busy, "ReentrantLock") || !strings.Contains(busy, "|2|") {
		t.Errorf("the busy ReentrantLock's row: %s", busy)
	}
	if n := strings.Count(dom, `<tr class="deadlocked"`); n != 4 {
		t.Errorf("%d deadlocked lock rows, want 4", n)
	}
	if t.Failed() {
		t.Logf("locks section:\n%s", regexp.MustCompile(`(?s)<section id="locks">.*?</section>`).FindString(dom))
	}
}

func linkName(m []string) string {
	if m[3] != "" {
		return m[3]
	}
	return m[6]
}

func linkGroup(m []string) (int, string) {
	key, gi := m[1], m[2]
	if key == "" {
		key, gi = m[4], m[5]
	}
	n, _ := strconv.Atoi(gi)
	return n, key
}

// readAllJVM reads one dump whole, its routines in memory.
func readAllJVM(b []byte) (*stack.Dump, error) {
	dumps, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if len(dumps) != 1 {
		return nil, fmt.Errorf("%d dumps", len(dumps))
	}
	return dumps[0], nil
}
