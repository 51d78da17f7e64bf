package remote

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// TestTargetQueryKept: a target's query parameters go with every request
// (stackdump's own set over them), and the target names itself with the
// values of secret-looking ones replaced. Before, ParseTarget dropped the
// query: a service that authenticates by a token parameter refused.
func TestTargetQueryKept(t *testing.T) {
	tg, err := ParseTarget("http://h:1/debug/pprof/goroutine?token=abc&debug=1&team=x", "")
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[Mode]string{
		ModeFull:    "http://h:1/debug/pprof/goroutine?debug=2&team=x&token=abc",
		ModeCounts:  "http://h:1/debug/pprof/goroutine?debug=1&team=x&token=abc",
		ModeGrouped: "http://h:1/debug/pprof/goroutine?debug=0&team=x&token=abc",
		ModeTrace:   "http://h:1/debug/pprof/trace?debug=1&seconds=0.001&team=x&token=abc",
	} {
		if got := DumpURL(tg, mode, time.Millisecond); got != want {
			t.Errorf("DumpURL(%s) = %s, want %s", mode, got, want)
		}
	}
	ep, err := ParseTarget("h:1/debug/stackdump?api_key=k&mode=grouped", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DumpURL(ep, ModeFull, 0), "http://h:1/debug/stackdump?api_key=k&format=json&mode=full"; got != want {
		t.Errorf("endpoint DumpURL = %s, want %s", got, want)
	}

	checkTargetStrings(t, map[string]string{
		"http://h:1/x?token=abc&a=b":                        "http://h:1/x?token=xxxxx&a=b",
		"h:1/?API_Key=1&Signature=2&x=3&passwd=&Auth":       "h:1/?API_Key=xxxxx&Signature=xxxxx&x=3&passwd=&Auth",
		"http://u:pw@h:1/?access_token=t%26u&my%5Fsecret=s": "http://u:xxxxx@h:1/?access_token=xxxxx&my%5Fsecret=xxxxx",
		"https://h:1/debug/stackdump?X-Amz-Signature=z#top": "https://h:1/debug/stackdump?X-Amz-Signature=xxxxx#top",
		"http://h:1/x?a=b":                                  "http://h:1/x?a=b",
	})
	for _, in := range []string{"http://h:1/debug/pprof/heap?token=abc", "ftp://h:1/?token=abc", "http://h:1/?token=abc;x=1"} {
		if _, err := ParseTarget(in, ""); err == nil || strings.Contains(err.Error(), "abc") || !strings.Contains(err.Error(), "token=xxxxx") {
			t.Errorf("ParseTarget(%q): err = %v, want an error naming the target without its token", in, err)
		}
	}
}

// TestOpenSendsTargetQuery captures a net/http/pprof server on 127.0.0.1
// that answers only requests carrying its token, through a bare base URL
// (the endpoint probe, then net/http/pprof) and in each mode; then one
// whose redirects loop and one that is gone: their errors name the URL
// with the token masked.
func TestOpenSendsTargetQuery(t *testing.T) {
	const token = "t0k3n-abc"
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.String(), http.StatusFound)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != token {
			http.Error(w, "token required", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	ctx := context.Background()
	for _, mode := range []Mode{ModeFull, ModeGrouped, ModeCounts, ModeTrace} {
		tg, err := ParseTarget(srv.URL+"/?token="+token, "")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := OpenDocument(ctx, tg, Options{Mode: mode}, formats.ReadOptions{})
		if err != nil {
			t.Errorf("--mode %s: %v", mode, err)
			continue
		}
		if !strings.Contains(doc.URL, "token=xxxxx") || strings.Contains(doc.URL, token) {
			t.Errorf("--mode %s: the document's URL is %s, want the token masked", mode, doc.URL)
		}
		if d := readDocument(t, doc); len(d.Routines) == 0 {
			t.Errorf("--mode %s: no goroutine read", mode)
		}
	}
	for _, target := range []string{srv.URL + "/loop?token=" + token, "http://" + gone + "/debug/pprof/goroutine?token=" + token} {
		tg, err := ParseTarget(target, "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, tg, Options{Retries: -1})
		if err == nil {
			s.Close()
			t.Fatalf("%s: no error", target)
		}
		if msg := err.Error(); strings.Contains(msg, token) || !strings.Contains(msg, "token=xxxxx") {
			t.Errorf("%s: error %q, want the URL with the token masked", tg, msg)
		}
	}
}

// checkTargetStrings parses each target of cases and checks how it names
// itself (String, with secrets masked) and that Raw keeps it as written.
func checkTargetStrings(t *testing.T, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		tg, err := ParseTarget(in, "")
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", in, err)
			continue
		}
		if got := tg.String(); got != want || tg.Raw != in {
			t.Errorf("ParseTarget(%q): String %q, Raw %q; want %q and the target as written", in, got, tg.Raw, want)
		}
	}
}
