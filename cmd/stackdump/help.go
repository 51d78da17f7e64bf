package main

import "github.com/spf13/cobra"

// The --help pages: examples first, then plain words; the detail is in
// docs/ (each page names where). Every command's texts are here, so that
// they read as one voice.

// helpTemplate puts the examples before everything but the one-line
// summary; cobra's own puts them after the description and the usage.
const helpTemplate = `{{.Short | trimTrailingWhitespaces}}
{{if .HasExample}}
Examples:
{{.Example}}
{{end}}
Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}
{{with .Long}}
{{. | trimTrailingWhitespaces}}
{{end}}{{if .HasAvailableSubCommands}}
Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}
{{end}}{{if .HasAvailableLocalFlags}}
Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}
{{end}}{{if .HasAvailableInheritedFlags}}
Global flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}
{{end}}{{if .HasAvailableSubCommands}}
"{{.CommandPath}} COMMAND --help" shows a command's examples and flags.
{{end}}`

// setHelp gives cmd its texts; the root, the help template its commands
// inherit.
func setHelp(cmd *cobra.Command, h help) {
	cmd.Short, cmd.Long, cmd.Example = h.short, h.long, h.example
	if !cmd.HasParent() {
		cmd.SetHelpTemplate(helpTemplate)
	}
}

// help is one command's texts.
type help struct{ short, long, example string }

var rootHelp = help{
	short: "stackdump: goroutine and thread dumps of Go services (and JVMs) — take them, read them, see what is wrong",
	example: `  stackdump capture localhost:6060 -o dump.json.gz   # a live Go service that serves net/http/pprof
  stackdump analyze dump.json.gz                     # what looks stuck, leaked or contended
  stackdump analyze crash.log                        # a panic, a fatal error, a go test timeout
  stackdump diff before.txt after.txt                # which stacks grew
  stackdump report dump.json.gz                      # one HTML page: report.html
  stackdump watch localhost:6060 --every 30s         # follow a service; flag stacks that keep growing`,
	long: `stackdump reads every goroutine dump Go prints (runtime.Stack, panics,
/debug/pprof/goroutine, SIGQUIT) and JVM thread dumps, groups identical
stacks, and says what looks wrong. README.md and docs/ in the repository
have the details.`,
}

var captureHelp = help{
	short: "Take goroutine or thread dumps of running processes",
	example: `  stackdump capture localhost:6060 -o dump.json.gz        # a Go service that serves net/http/pprof
  stackdump capture http://10.0.0.5:6060 http://10.0.0.6:6060 -o dumps/
  stackdump capture gops://4242 -o dump.txt               # the gops agent of process 4242
  stackdump capture jvm:4242 -o threads.txt               # a JVM on this machine
  stackdump capture pid:8219 -o goroutines.txt            # any Go process on this machine, no endpoint needed
  stackdump capture --mode trace localhost:6060 -o snap.json   # a huge service: one pause of tens of µs
  stackdump capture --max-pause 50ms localhost:6060 -o dump.json   # never stop it longer than 50ms
  stackdump capture --mode leak localhost:6060 -o leaks.txt    # Go 1.27+: the runtime proves leaks`,
	long: `Targets:
  host:port, http://host:port    a Go service with net/http/pprof or stackdump's endpoint
  http://host:port/path?token=…  that URL; its query (a token) goes with every request
  gops://host:port, gops://PID   a gops agent
  jvm:PID                        a JVM on this machine (through jcmd or jstack)
  pid:PID                        a Go process on this machine, read from its memory:
                                 no endpoint, no signal (stackdump ps lists them;
                                 docs/pid.md)

Every goroutine is taken with its id, state and stack. Taking them stops
the service for about 10–90 µs per goroutine: above a second, capture warns
first; --mode trace or --max-pause keep the stop short. --mode leak stalls
the service while the runtime looks for leaks, and is refused above
--leak-max-goroutines.

Several targets are captured at once; the exit status is 1 if any failed.
Targets, output and messages: docs/remote.md; what each mode costs:
docs/modes.md.`,
}

var watchHelp = help{
	short: "Capture services every few seconds and flag the stacks that keep growing",
	example: `  stackdump watch localhost:6060 --every 30s                    # the largest groups, leak suspects
  stackdump watch localhost:6060 --every 30s -o snapshots/ --keep 20
  stackdump watch http://svc:6060 --every 5s --count 12 --json | jq .suspects
  stackdump watch --targets hosts.txt --every 1m --metrics :9464   # a fleet, with Prometheus metrics
  stackdump watch localhost:6060 --every 1m --leak-every 10        # Go 1.27+: leaks the runtime proves`,
	long: `watch captures each target every --every and prints a table per target:
the largest groups of identical stacks, their change since the last
snapshot and since the first. A group that grew in each of the last
--leak-after snapshots is a leak suspect. Ctrl-C or --count ends it with a
summary; --json prints one line per snapshot instead.

To keep each service responsive, watch counts its goroutines first (a
pause of microseconds) and takes every stack only when a group grew or
appeared (or every --detail-every snapshots), and only when that stops the
service no longer than --max-pause, judged from what this target's own
earlier captures cost; otherwise it takes a cheaper snapshot. The table says
what each snapshot took and what it cost, and the findings of analyze
with their evidence. A target that restarted begins a new history, and the
table says so.

Exit status: 0 when every target gave at least one snapshot; 1 when any
target gave none; 130 or 143 after Ctrl-C or SIGTERM. More: docs/remote.md
(Watch) and docs/fleet.md.`,
}

var convertHelp = help{
	short: "Rewrite a dump in another format: text, JSON, pprof, grouped",
	example: `  stackdump convert goroutines.txt -o goroutines.json.gz
  curl -s 'localhost:6060/debug/pprof/goroutine?debug=2' | stackdump convert -o now.json
  stackdump convert --dedupe goroutines.txt        # each set of identical stacks once, counted
  stackdump convert dump.txt -o dump.pb.gz          # for go tool pprof
  stackdump convert --focus 'mypkg/' dump.txt       # only the goroutines in our code`,
	long: `convert reads a dump in any form stackdump reads (Go tracebacks, goroutine
profiles, stackdump JSON, JVM thread dumps; compressed or not; standard
input with no FILE or "-") and writes it in the format the -o name says
(.txt, .json, .pb, .folded; .gz or .zst compress), or --format. --dedupe
writes each set of identical stacks once, with its count, ids and states;
--by func matches two builds whose line numbers differ. Formats:
docs/go-formats.md, docs/json.md.`,
}

var analyzeHelp = help{
	short: "Say what looks wrong in dumps: crashes, leaks, stuck and contended goroutines",
	example: `  stackdump analyze dump.txt
  stackdump analyze crash.log                       # a panic, a fatal error, a go test timeout
  stackdump analyze before.txt after.txt            # one process twice: growth is evidence
  curl -s 'localhost:6060/debug/pprof/goroutine?debug=2' | stackdump analyze -
  stackdump analyze --json dump.json.gz | jq '.dumps[0].findings[] | {kind, confidence, claim}'`,
	long: `analyze prints one screen per dump: what crashed, if it did; goroutines
by state; the largest groups of identical stacks; the longest waits; its
findings (leaks, deadlocks, lock pile-ups with their probable holder), each
with its evidence, how sure it is and what would prove it; who started the
goroutines; and for JVM dumps, the locks that block the most threads. How
each finding is judged: docs/verdicts.md; every --json field:
docs/analyze.md.`,
}

var diffHelp = help{
	short: "Compare two dumps: which stacks are new, gone, grew or shrank",
	example: `  stackdump diff before.txt after.txt
  stackdump diff --fail-on-growth 100 baseline.txt now.txt   # exit 3 when a group grew by 100 (CI, cron)
  curl -s 'host:6060/debug/pprof/goroutine?debug=1' | stackdump diff baseline.txt -
  stackdump diff --by func v1.txt v2.txt            # two builds: match functions, not lines`,
	long: `diff groups identical stacks in each dump and lists the groups that are
new, gone, grew or shrank, largest change first, with the change of the
total. The two may be of different forms (a traceback and a profile of one
service match); a Go dump against a JVM dump is refused. When a file holds
several dumps, the first is compared. More: docs/dedupe.md.`,
}

var timelineHelp = help{
	short: "Follow dumps of one process over time: what is stuck, what came and went",
	example: `  for i in 1 2 3; do curl -s 'host:6060/debug/pprof/goroutine?debug=2' > g$i.txt; sleep 30; done
  stackdump timeline g1.txt g2.txt g3.txt
  for i in 1 2 3; do jcmd $PID Thread.print > t$i.txt; sleep 10; done; stackdump timeline t*.txt
  stackdump timeline kill3.log                      # several dumps in one file
  stackdump timeline --json g*.txt | jq '.stuck[] | {count, state, frame}'`,
	long: `timeline reads dumps of one process taken one after another and reports
deadlocks and groups that kept growing, the goroutines and threads stuck
in the same place with no progress on a wait that shows they cannot
progress (and for how long at least), apart from the idle ones waiting for
the network, a timer or work; the ones that came and went, the JVM threads that
used the most CPU between dumps, and the largest groups over time. The
runtime's and the JVM's own housekeeping threads are folded into one line
(--housekeeping lists them). Dumps are taken in the order of their capture
times when they all have one, else as given. Rules and --json:
docs/timeline.md.`,
}

var reportHelp = help{
	short: "Write dumps as one HTML page to open in a browser",
	example: `  stackdump report dump.txt                         # writes report.html here
  stackdump report before.txt during.txt after.txt -o leak.html
  curl -s 'localhost:6060/debug/pprof/goroutine?debug=2' | stackdump report - -o now.html`,
	long: `report writes one HTML page that opens from disk and loads nothing from
the network: what the dump holds, goroutines by state, a flame graph, the
groups with their stacks and a filter box; several dumps add a timeline and
a picker. With no -o it writes report.html in the current directory and
says so; -o - writes standard output. More: docs/report.md.`,
}
