package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOverflowingCountsNeverNegative runs convert --dedupe, convert to
// folded and analyze over the real debug=1 profile of testdata/gen with
// two record counts of 9223372036854775807: no total, count or
// percentage in their output is negative or above the bound (2^40 a
// record), and the warnings name the lines.
func TestOverflowingCountsNeverNegative(t *testing.T) {
	in, err := os.ReadFile("../../testdata/debug1/go1.26.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	record := regexp.MustCompile(`(?m)^\d+ @`)
	n := 0
	in = record.ReplaceAllFunc(in, func(m []byte) []byte {
		if n++; n > 2 {
			return m
		}
		return []byte(strconv.FormatInt(math.MaxInt64, 10) + " @")
	})
	path := filepath.Join(t.TempDir(), "overflow.txt")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	negative := regexp.MustCompile(`(^|[\s(:,\[])-\d`)
	for _, args := range [][]string{
		{"convert", "--dedupe", "--format", "text", path},
		{"convert", "--dedupe", "--format", "json", path},
		{"convert", "--format", "folded", path},
		{"analyze", "--color", "never", path},
		{"analyze", "--json", path},
	} {
		out, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if m := negative.FindString(out); m != "" {
			t.Errorf("%v: output holds a negative number %q:\n%s", args, m, out[:min(len(out), 800)])
		}
		// The warnings quote the record's line; everything else is counts.
		counts := regexp.MustCompile(`(?m)^.*(above the bound|"text": "9223372036854775807 @).*$`).ReplaceAllString(out, "")
		if strings.Contains(counts, "9223372036854775807") || strings.Contains(counts, "9.2e+18") {
			t.Errorf("%v: output holds a count above the bound:\n%s", args, out[:min(len(out), 800)])
		}
		if args[0] == "convert" && (!strings.Contains(stderr, "line 2: record count 9223372036854775807 is above the bound") ||
			!strings.Contains(stderr, "line 5: record count")) {
			t.Errorf("%v: warnings %q, want lines 2 and 5 named", args, stderr)
		}
	}
}
