package remote

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// A server that speaks before it is asked (an SSH or SMTP port) makes
// net/http fail with "readLoopPeekFailLocked: %!w(<nil>)" when its banner
// arrives before the request is written, and with "malformed HTTP
// response" after: both are told as a port that is not HTTP, with the
// advice to give the debug port. The error is net/http's own form
// (transport.go, persistConn.readLoopPeekFailLocked); which of the two a
// real banner gives depends on timing, so the first is built here.
func TestConnErrorServerSpeaksFirst(t *testing.T) {
	tg, err := ParseTarget("127.0.0.1:2222", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, inner := range []error{
		fmt.Errorf("readLoopPeekFailLocked: %w", nil),
		fmt.Errorf(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "SSH-2.0-OpenSSH_9.6"`),
	} {
		ce := newConnError(tg, tg.URL.String(), &url.Error{Op: "Get", URL: tg.URL.String(), Err: inner}, Options{})
		msg := ce.Error()
		if !strings.Contains(msg, "not HTTP") || !strings.Contains(msg, "this is not the service's debug port") || strings.Contains(msg, "%!w") {
			t.Errorf("%v: %s", inner, msg)
		}
	}
}
