package remote

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// TargetKind says how a target is reached.
type TargetKind string

// Target kinds.
const (
	TargetPprof    TargetKind = "pprof"    // net/http/pprof: /debug/pprof/goroutine
	TargetEndpoint TargetKind = "endpoint" // stackdump's dumper.Handler
	TargetGops     TargetKind = "gops"     // a gops agent: gops://host:port
	TargetJVM      TargetKind = "jvm"      // jvm:PID through jcmd or jstack
	TargetPID      TargetKind = "pid"      // pid:PID: a Go process on this machine, read from its memory (goproc)
)

// DefaultPprofPath is appended to a bare base URL or host:port.
const DefaultPprofPath = "/debug/pprof/goroutine"

// Target is one process to capture.
type Target struct {
	// Raw is the target as the user wrote it.
	Raw  string
	Kind TargetKind
	// URL is the dump's URL for pprof and endpoint targets, with the
	// query parameters the user wrote (a token a service authenticates
	// by): every request to the target carries them, stackdump's own
	// parameters (debug, seconds, format, mode, window) set over them.
	URL *url.URL
	// Addr is host:port for gops targets; empty for gops://PID, whose
	// agent's port is read from its port file when the capture starts.
	Addr string
	// PID is the process id for JVM targets, pid: targets and gops://PID.
	PID int
	// Discover is set for bare base URLs without a known endpoint: the
	// capture first asks DefaultEndpointPath and falls back to pprof on 404.
	Discover bool
}

// String is the target as written, with a URL's password and the values
// of its secret-looking query parameters (see secretParam) replaced by
// "xxxxx": it names the target in messages, in the dumps written
// (Source.Target) and in watch's tables and metrics, none of which may
// carry a secret. Raw keeps the secrets.
func (t Target) String() string {
	if t.URL == nil {
		return t.Raw
	}
	return redact(t.Raw, t.URL)
}

// redact returns s, a URL or host:port as written (u parsed from it),
// with its password and its secret query values replaced by "xxxxx".
func redact(s string, u *url.URL) string {
	return redactQuery(redactPassword(s, u))
}

// redactPassword returns s, a URL or host:port as written (u parsed from
// it), with u's password replaced by "xxxxx".
func redactPassword(s string, u *url.URL) string {
	pass, ok := u.User.Password()
	if !ok || pass == "" {
		return s
	}
	// The password as written in s: escaped as url.UserPassword would, or
	// as the user typed it.
	for _, written := range []string{":" + pass + "@", ":" + url.UserPassword("", pass).String()[1:] + "@"} {
		if i := strings.Index(s, written); i >= 0 {
			return s[:i] + ":xxxxx@" + s[i+len(written):]
		}
	}
	return u.Redacted()
}

// redactURL is rawURL with its password and secret query values, if
// any, replaced by "xxxxx".
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return redactQuery(rawURL)
	}
	return redact(rawURL, u)
}

// secretWords are what a query parameter's name contains when its value
// is a secret: token and access_token, key and api_key, secret, password,
// passwd, auth, sig and signature.
var secretWords = []string{"token", "key", "secret", "password", "passwd", "auth", "sig"}

// secretParam reports whether a query parameter named name (as written,
// perhaps escaped) carries a secret: its name contains one of secretWords,
// in any case.
func secretParam(name string) bool {
	if unescaped, err := url.QueryUnescape(name); err == nil {
		name = unescaped
	}
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactQuery returns s, a URL as written or encoded, with the value of
// every secret query parameter (secretParam) replaced by "xxxxx"; the
// rest of s is left as it was.
func redactQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	end := len(s)
	if h := strings.IndexByte(s[q:], '#'); h >= 0 {
		end = q + h
	}
	params := strings.Split(s[q+1:end], "&")
	for i, p := range params {
		if name, value, ok := strings.Cut(p, "="); ok && value != "" && secretParam(name) {
			params[i] = name + "=xxxxx"
		}
	}
	return s[:q+1] + strings.Join(params, "&") + s[end:]
}

// ParseTarget parses a target:
//
//	http://host:port            net/http/pprof; /debug/pprof/goroutine is appended
//	http://host:port/some/path  the URL as given (a pprof goroutine URL, or the endpoint);
//	                            its query parameters go with every request (see Target.URL);
//	                            net/http/pprof's index (…/pprof/) means its goroutine profile
//	host:port                   like http://host:port
//	gops://host:port            a gops agent
//	gops://PID                  the gops agent of a process on this machine (its port file)
//	jvm:PID                     a JVM on this machine
//	pid:PID                     a Go process on this machine, read from its memory
//
// endpoint, when not empty, is the path of stackdump's endpoint
// (dumper.Handler); it replaces the pprof path for bare base URLs, and a URL
// whose path equals it is an endpoint target. When endpoint is empty, a URL
// whose path is DefaultEndpointPath is an endpoint target.
//
// A URL of a net/http/pprof profile other than the goroutine profile
// (…/pprof/heap, …/pprof/profile, …/pprof/goroutineleak, …) is an error:
// it is not a goroutine dump, and some of them cost the target (a 30 s CPU
// profile, the leak-detection GC cycle that ModeLeak counts goroutines
// before running).
func ParseTarget(s, endpoint string) (Target, error) {
	t := Target{Raw: s}
	switch {
	case strings.HasPrefix(s, "jvm:"):
		pid, err := strconv.Atoi(strings.TrimPrefix(s, "jvm:"))
		if err != nil || pid <= 0 {
			return t, fmt.Errorf("target %q: want jvm:PID with a positive process id", s)
		}
		t.Kind, t.PID = TargetJVM, pid
		return t, nil
	case strings.HasPrefix(s, "pid:"):
		pid, err := strconv.Atoi(strings.TrimPrefix(s, "pid:"))
		if err != nil || pid <= 0 {
			return t, fmt.Errorf("target %q: want pid:PID with a positive process id", s)
		}
		t.Kind, t.PID = TargetPID, pid
		return t, nil
	case strings.HasPrefix(s, "gops://"):
		addr := strings.TrimPrefix(s, "gops://")
		if pid, err := strconv.Atoi(addr); err == nil && pid > 0 {
			// A pid, as gops takes: its agent's port is found when
			// the capture starts (gopsAddr).
			t.Kind, t.PID = TargetGops, pid
			return t, nil
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return t, fmt.Errorf("target %q: want gops://host:port or gops://PID: %w", s, err)
		}
		t.Kind, t.Addr = TargetGops, addr
		return t, nil
	}
	raw := s
	if !strings.Contains(raw, "://") {
		if _, _, err := net.SplitHostPort(raw); err != nil {
			return t, fmt.Errorf("target %q: want a URL, host:port, gops://host:port, jvm:PID or pid:PID", s)
		}
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // ue names the URL with its secrets
		}
		return t, fmt.Errorf("target %q: %w", redactURL(s), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return t, fmt.Errorf("target %q: unsupported scheme %q (want http, https, gops, jvm or pid)", redact(s, u), u.Scheme)
	}
	if u.Host == "" {
		return t, fmt.Errorf("target %q: no host", redact(s, u))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		// A parameter that cannot be parsed would be dropped from the
		// requests without a word.
		return t, fmt.Errorf("target %q: query: %w", redact(s, u), err)
	}
	u.Fragment, u.RawFragment = "", ""
	t.URL, t.Kind = u, TargetPprof
	switch {
	case u.Path == "" || u.Path == "/":
		if endpoint != "" {
			u.Path, t.Kind = endpoint, TargetEndpoint
		} else {
			u.Path, t.Discover = DefaultPprofPath, true
		}
	case endpoint != "" && u.Path == endpoint,
		endpoint == "" && u.Path == DefaultEndpointPath:
		t.Kind = TargetEndpoint
	case path.Base(u.Path) == "pprof":
		// net/http/pprof's index page, as a browser shows it: its
		// goroutine profile is meant.
		u.Path = strings.TrimSuffix(u.Path, "/") + "/goroutine"
	default:
		if err := checkPprofPath(u); err != nil {
			return t, fmt.Errorf("target %q: %w", redact(s, u), err)
		}
	}
	return t, nil
}

// otherProfiles are net/http/pprof's pages that are not the goroutine
// profile, with what they are.
var otherProfiles = map[string]string{
	"heap":          "the heap profile",
	"allocs":        "the allocation profile",
	"block":         "the blocking profile",
	"mutex":         "the mutex profile",
	"threadcreate":  "the thread creation profile",
	"profile":       "the CPU profile (it profiles the target for 30 s)",
	"trace":         "the execution trace (take it with ModeTrace)",
	"cmdline":       "the command line",
	"symbol":        "the symbol lookup",
	"goroutineleak": "the goroutine leak profile: its leak-detection GC cycle runs on every request (take it with ModeLeak, which counts the goroutines first)",
}

// checkPprofPath refuses a net/http/pprof URL (a path ending in
// pprof/NAME) of a page that is not the goroutine profile.
func checkPprofPath(u *url.URL) error {
	dir, name := path.Split(strings.TrimSuffix(u.Path, "/"))
	what, ok := otherProfiles[name]
	if !ok || path.Base(dir) != "pprof" {
		return nil
	}
	return fmt.Errorf("%s is %s, not a goroutine dump; give the goroutine profile's URL (%sgoroutine) or host:port", u.Path, what, dir)
}
