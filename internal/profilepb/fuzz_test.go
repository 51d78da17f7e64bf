package profilepb_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/internal/profilepb"
)

// FuzzDecode decodes any bytes: no panic, an error is an *Error whose
// offset is inside the input, what decodes is what google/pprof/profile
// accepts (ParseUncompressed and CheckValid) with the same fields, and
// Marshal writes it back to the same profile.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/pprof/*.pb.gz")
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(gunzip(f, raw))
	}
	f.Add(numericLabelProfile(f))
	f.Fuzz(func(t *testing.T, in []byte) {
		ours, err := profilepb.Decode(in)
		theirs, theirErr := profile.ParseUncompressed(in)
		if theirErr == nil {
			theirErr = theirs.CheckValid()
		}
		if err != nil {
			var e *profilepb.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			if e.Offset < 0 || e.Offset > 0 && e.Offset >= len(in) {
				t.Fatalf("offset %d of %d bytes: %v", e.Offset, len(in), err)
			}
			if theirErr == nil && len(in) > 0 {
				t.Fatalf("refused what google/pprof/profile reads: %v", err)
			}
			return
		}
		if theirErr != nil {
			t.Fatalf("read what google/pprof/profile refuses (%v)", theirErr)
		}
		checkSame(t, ours, theirs)
		back, err := profilepb.Decode(ours.Marshal())
		if err != nil {
			t.Fatalf("decoding what Marshal wrote: %v", err)
		}
		if !reflect.DeepEqual(back, ours) {
			t.Fatal("Marshal and Decode give another profile")
		}
	})
}

// TestDecodeErrors: references to nothing and broken framing are errors
// that name the offset and what is wrong.
func TestDecodeErrors(t *testing.T) {
	good := numericLabelProfile(t)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"no string table", []byte{0x60, 0x01}, "offset 0: no string_table"},
		{"first string not empty", []byte{0x32, 0x01, 'x'}, `string_table[0] must be empty`},
		{"cut", good[:len(good)/2], "needs"},
		{"string index", []byte{0x32, 0x00, 0x70, 0x09}, "field default_sample_type (14): string index 9 out of range (1 strings)"},
		{"missing location", []byte{0x0a, 0x02, 0x08, 0x01, 0x12, 0x04, 0x08, 0x05, 0x10, 0x01, 0x32, 0x00, 0x32, 0x01, 'g'}, "offset 4: sample 1: location id 5 not in the profile"},
		{"missing function", []byte{0x22, 0x06, 0x08, 0x01, 0x22, 0x02, 0x08, 0x03, 0x32, 0x00}, "offset 0: location 1: line 1 names function id 3, not in the profile"},
		{"values", []byte{0x0a, 0x00, 0x12, 0x00, 0x32, 0x00}, "sample 1 has 0 values for 1 sample types"},
		{"wire type", []byte{0x08, 0x01, 0x32, 0x00}, "field sample_type (1): wire type 0 where profile.proto has 2"},
		{"bad varint in a line", []byte{0x22, 0x04, 0x22, 0x02, 0x08, 0xff, 0x32, 0x00}, "offset 4: field function_id (1) in line at offset 2: bad varint"},
	} {
		_, err := profilepb.Decode(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if _, err := profile.ParseUncompressed(c.in); err == nil {
			if p, _ := profile.ParseUncompressed(c.in); p.CheckValid() == nil {
				t.Errorf("%s: google/pprof/profile reads it", c.name)
			}
		}
	}
}
