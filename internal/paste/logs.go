package paste

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"
)

// clock hands out the times of log lines: a start drawn from the seed, then
// a few microseconds to milliseconds per line, as a process writing a dump
// to its log produces them.
type clock struct {
	t time.Time
	r *rand.Rand
}

func newClock(r *rand.Rand) *clock {
	start := time.Date(2024, time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), time.UTC)
	return &clock{t: start, r: r}
}

// next returns the time of the next line; lines of one write often share
// their time to the microsecond, so it advances only now and then.
func (c *clock) next() time.Time {
	if c.r.IntN(4) == 0 {
		c.t = c.t.Add(time.Duration(1+c.r.IntN(4000)) * time.Microsecond)
	} else {
		c.t = c.t.Add(time.Duration(c.r.IntN(900)) * time.Nanosecond)
	}
	return c.t
}

var (
	journalHosts = []string{
		"bootstrap-e2e-minion-group-mfdb kubelet[1874]",
		"pi5 kubelet[716]",
		"prod-node-1 forward-journal[12371]",
		"docker dockerd[1959]",
	}
	syslogHosts = []string{"localhost dockerd", "jycloud01 docker-current", "web-3 app"}
	logLeads    = []func(c *clock) (before []string, after []string){
		func(c *clock) ([]string, []string) { // logrus text formatter (dockerd)
			return []string{"INFO[" + c.next().Format("2006-01-02T15:04:05.000000000Z") + "] API listen on /var/run/docker.sock"},
				[]string{"INFO[" + c.next().Format("2006-01-02T15:04:05.000000000Z") + "] Processing signal 'terminated'"}
		},
		func(c *clock) ([]string, []string) { // logfmt (logrus with a file)
			ts := func() string { return c.next().Format(time.RFC3339Nano) }
			return []string{`time="` + ts() + `" level=info msg="Loading containers: done."`,
					`time="` + ts() + `" level=info msg="Daemon has completed initialization"`},
				[]string{`time="` + ts() + `" level=warning msg="stack dump written"`}
		},
		func(c *clock) ([]string, []string) { // klog
			t := c.next()
			return []string{"I" + t.Format("0102 15:04:05.000000") + "   28683 main.go:47] === received SIGQUIT (quit) ===",
					"*** goroutine dump..."},
				[]string{"E" + c.next().Format("0102 15:04:05.000000") + "   28683 main.go:52] exiting"}
		},
		func(c *clock) ([]string, []string) { // slog JSON handler
			ts := func() string { return c.next().Format(time.RFC3339Nano) }
			return []string{`{"time":"` + ts() + `","level":"INFO","msg":"received signal","signal":"quit"}`},
				[]string{`{"time":"` + ts() + `","level":"ERROR","msg":"shutdown timed out","after":"30s"}`}
		},
		func(c *clock) ([]string, []string) { // zap JSON encoder
			ts := func() string { return fmt.Sprintf("%.6f", float64(c.next().UnixMicro())/1e6) }
			return []string{`{"level":"info","ts":` + ts() + `,"caller":"server/main.go:88","msg":"dumping threads"}`},
				[]string{`{"level":"warn","ts":` + ts() + `,"caller":"server/main.go:91","msg":"dump done"}`}
		},
		func(c *clock) ([]string, []string) { // Spring Boot's logback pattern
			ts := func() string { return c.next().Format("2006-01-02 15:04:05.000") }
			return []string{ts() + "  INFO 1 --- [           main] c.e.diag.ThreadDumper                    : Thread dump follows"},
				[]string{ts() + "  INFO 1 --- [           main] c.e.diag.ThreadDumper                    : Thread dump done"}
		},
	}
	// jsonLeads are the leads of logLeads whose lines are JSON objects.
	jsonLeads         = []func(c *clock) (before []string, after []string){logLeads[3], logLeads[4]}
	firstLinePrefixes = []func(c *clock) string{
		func(c *clock) string { return c.next().Format("2006/01/02 15:04:05 ") },           // Go's log.Printf("%s", dump)
		func(c *clock) string { return c.next().Format("2006-01-02 15:04:05 ") + "INFO " }, // a Java logger's message
	}
)

func logTransforms() []Transform {
	return []Transform{{
		Name:    "journald",
		Form:    "journalctl's short-precise prefix on every line: \"Nov 05 06:09:05.842397 host unit[pid]: \".",
		Example: "https://github.com/kubernetes/kubernetes/issues/128638",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c, host := newClock(r), pick(r, journalHosts)
			return prefixLines(in, func(int, []byte) string {
				return c.next().Format("Jan 02 15:04:05.000000") + " " + host + ": "
			})
		},
	}, {
		Name:    "syslog",
		Form:    "A syslog file's prefix \"Oct  1 10:19:30 host prog: \", the message's leading whitespace stripped and blank lines dropped, as rsyslog writes them.",
		Example: "https://github.com/moby/moby/issues/35050 https://github.com/kubernetes/kubernetes/issues/48045",
		Loss:    Reinferred,
		Fn: func(in []byte, r *rand.Rand) []byte {
			c, host := newClock(r), pick(r, syslogHosts)
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if isBlank(l) {
					return nil, false
				}
				return concat([]byte(c.next().Format("Jan _2 15:04:05")+" "+host+": "), trimLeftSpace(l)), true
			})
		},
	}, {
		Name:    "docker-timestamps",
		Form:    "docker logs --timestamps (and kubectl logs --timestamps): an RFC 3339 time with nanoseconds and a space before every line.",
		Example: "issue 22 (stackdump) item 6; the same shape with 7 digits: https://github.com/matrixorigin/matrixone/issues/19185",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			return prefixLines(in, func(int, []byte) string {
				return c.next().Format("2006-01-02T15:04:05.000000000Z") + " "
			})
		},
	}, {
		Name:    "actions-timestamps",
		Form:    "A GitHub Actions log: a time with 7 fractional digits and a space before every line, blank lines too.",
		Example: "https://github.com/matrixorigin/matrixone/issues/19185 https://github.com/milvus-io/milvus/issues/7977",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			return prefixLines(in, func(int, []byte) string {
				return c.next().Format("2006-01-02T15:04:05.0000000Z") + " "
			})
		},
	}, {
		Name:    "cut-timestamp",
		Form:    "A timestamped log selected from inside the first time stamp, so the first line starts with its tail (\"3.6367390Z panic: test timed out\").",
		Example: "https://github.com/matrixorigin/matrixone/issues/19185",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			out := prefixLines(in, func(int, []byte) string {
				return c.next().Format("2006-01-02T15:04:05.0000000Z") + " "
			})
			const stamp = len("2006-01-02T15:04:05.0000000Z")
			if len(out) <= stamp+1 {
				return out
			}
			return out[1+r.IntN(stamp-1):]
		},
	}, {
		Name:    "kubectl-prefix",
		Form:    "kubectl logs --prefix: \"[pod/NAME/CONTAINER] \" before every line.",
		Example: "kubectl logs --prefix (kubectl reference); no stored public paste found",
		Fn: func(in []byte, r *rand.Rand) []byte {
			pre := fmt.Sprintf("[pod/api-%x-%05x/app] ", 0x5d4f7c9b8+r.IntN(1<<20), r.IntN(1<<20))
			return prefixLines(in, func(int, []byte) string { return pre })
		},
	}, {
		Name:    "wrapper",
		Form:    "The Java Service Wrapper's \"jvm 1    | \" before every line of the JVM's output (\"jvm 1    |\" on blank ones).",
		Example: "https://github.com/krosenvold/bgit/issues/6",
		Kinds:   JVM,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if len(l) == 0 {
					return []byte("jvm 1    |"), true
				}
				return concat([]byte("jvm 1    | "), l), true
			})
		},
	}, {
		Name:    "logcat",
		Form:    "Android logcat's \"E/Go: \" before every line, blank lines dropped.",
		Example: "https://github.com/golang/go/issues/20259",
		Loss:    Reinferred,
		Kinds:   Go,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if isBlank(l) {
					return nil, false
				}
				return concat([]byte("E/Go: "), l), true
			})
		},
	}, {
		Name:    "log-lead",
		Form:    "Log lines of the program around the dump: logrus, logfmt, klog, slog or zap JSON, or logback lines before and after it.",
		Example: "https://github.com/moby/moby/pull/44791 https://github.com/SAP-archive/stewardci-core/pull/256 https://github.com/moby/moby/issues/27130",
		Fn: func(in []byte, r *rand.Rand) []byte {
			before, after := logLeads[r.IntN(len(logLeads))](newClock(r))
			return concat([]byte(strings.Join(before, "\n")+"\n"), withNL(in), []byte(strings.Join(after, "\n")+"\n"))
		},
	}, {
		Name:    "log-lead-json",
		Form:    "JSON log lines of the program around the dump (slog's JSON handler, zap's JSON encoder), the first line of the paste one of them.",
		Example: "https://github.com/kubernetes-sigs/prow/issues/288 (JSON log lines followed by a raw dump); issue 38 (stackdump) item 1",
		Fn: func(in []byte, r *rand.Rand) []byte {
			lead := jsonLeads[r.IntN(len(jsonLeads))]
			before, after := lead(newClock(r))
			return concat([]byte(strings.Join(before, "\n")+"\n"), withNL(in), []byte(strings.Join(after, "\n")+"\n"))
		},
	}, {
		Name:    "log-first-line",
		Form:    "A log prefix glued to the first line only: the dump logged as one multi-line message (\"2024-05-01 10:22:01 INFO \\\"main\\\" #1 ...\").",
		Example: "issue 22 (stackdump) item 1; no stored public paste found",
		Fn: func(in []byte, r *rand.Rand) []byte {
			return concat([]byte(firstLinePrefixes[r.IntN(len(firstLinePrefixes))](newClock(r))), in)
		},
	}, {
		Name:    "log-fields",
		Form:    "Every line logged as its own message by a structured logger: a level and time before it, key=value fields after it.",
		Example: "https://github.com/orbs-network/orbs-network-go/issues/845",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				return concat([]byte("info "+c.next().Format("2006-01-02T15:04:05.000000Z")+" "), l,
					[]byte(" function=instrumentation.logWriter.Write source=instrumentation/debug.go:17 ")), true
			})
		},
	}, {
		Name:    "test2json",
		Form:    "go test -json: every line as the Output of a JSON event, escaped.",
		Example: "https://github.com/golang/go/issues/38382 https://github.com/gotestyourself/gotestsum/issues/99",
		Kinds:   Go,
		Needs:   utf8.Valid,
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			t := split(in)
			var b strings.Builder
			for i, l := range t.lines {
				nl := "\\n"
				if i == len(t.lines)-1 && !t.finalNL {
					nl = ""
				}
				fmt.Fprintf(&b, `{"Time":"%s","Action":"output","Package":"example.com/app","Test":"TestServe","Output":"%s%s"}`+"\n",
					c.next().Format(time.RFC3339Nano), jsonEscape(string(l)), nl)
			}
			return []byte(b.String())
		},
	}, {
		Name:    "json-field",
		Form:    "The whole dump in one JSON log line, as the escaped \"stacktrace\" field of a zap-style entry.",
		Example: "https://github.com/yandex/pandora/issues/83 https://github.com/uber-go/zap/issues/877",
		Needs:   utf8.Valid,
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			return []byte(`{"level":"error","ts":"` + c.next().Format("2006-01-02T15:04:05.000Z") +
				`","logger":"diag","msg":"goroutine dump","stacktrace":"` + jsonEscape(string(in)) + `"}` + "\n")
		},
	}, {
		Name:    "fluentd-quoted",
		Form:    "A log shipper's warning for each line it could not parse, the line quoted and escaped (\\t, \\\").",
		Example: "https://github.com/kubernetes/kubernetes/issues/21811",
		Fn: func(in []byte, r *rand.Rand) []byte {
			c := newClock(r)
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				return []byte(c.next().Format("2006-01-02 15:04:05 -0700") + ` [warn]: pattern not match: "` + rubyEscape(l) + `"`), true
			})
		},
	}}
}

// jsonEscape escapes s for a JSON string as encoding/json does, without its
// HTML escapes (loggers turn them off). s must be valid UTF-8.
func jsonEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x2028 || c == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// rubyEscape writes l as Ruby's String#inspect does inside its quotes:
// \t, \r, \", \\ and \xNN for bytes that are not printable ASCII.
func rubyEscape(l []byte) string {
	var b strings.Builder
	for _, c := range l {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02X`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// trimLeftSpace drops the spaces and tabs that start l.
func trimLeftSpace(l []byte) []byte {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return l[i:]
}
