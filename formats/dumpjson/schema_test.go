package dumpjson_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A checker for the subset of JSON Schema (draft 2020-12) that
// docs/stackdump.schema.json uses. It fails on any keyword it does not
// implement, so the schema cannot drift past what is checked. In strict
// mode an object schema with "properties" and no "additionalProperties"
// rejects unknown keys: every key the writers emit must be documented.
type schemaChecker struct {
	root   map[string]any
	strict bool
}

var schemaAnnotations = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true}

func loadSchema(t *testing.T) *schemaChecker {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "stackdump.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &schemaChecker{root: root, strict: true}
}

// check returns the problems of v against schema s, each with its path.
func (c *schemaChecker) check(s map[string]any, v any, path string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	for k, kv := range s {
		switch k {
		case "$ref":
			ref, _ := kv.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			def, found := c.root["$defs"].(map[string]any)[name].(map[string]any)
			if !ok || !found {
				bad("unresolvable $ref %q", ref)
				continue
			}
			errs = append(errs, c.check(def, v, path)...)
		case "type":
			if !schemaTypeIs(kv.(string), v) {
				bad("type %T, want %s", v, kv)
			}
		case "const":
			if v != kv {
				bad("%v, want %v", v, kv)
			}
		case "enum":
			found := false
			for _, e := range kv.([]any) {
				found = found || e == v
			}
			if !found {
				bad("%v not in %v", v, kv)
			}
		case "minimum":
			if n, ok := v.(json.Number); ok {
				f, _ := n.Float64()
				if f < kv.(float64) {
					bad("%v below minimum %v", n, kv)
				}
			}
		case "pattern":
			if str, ok := v.(string); ok && !regexp.MustCompile(kv.(string)).MatchString(str) {
				bad("%q does not match %s", str, kv)
			}
		case "format":
			if str, ok := v.(string); ok && kv == "date-time" {
				if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
					bad("%q is not a date-time", str)
				}
			}
		case "required":
			if obj, ok := v.(map[string]any); ok {
				for _, r := range kv.([]any) {
					if _, ok := obj[r.(string)]; !ok {
						bad("required key %q missing", r)
					}
				}
			}
		case "properties":
			obj, ok := v.(map[string]any)
			if !ok {
				continue
			}
			props := kv.(map[string]any)
			_, open := s["additionalProperties"]
			for key, val := range obj {
				if ps, ok := props[key]; ok {
					errs = append(errs, c.check(ps.(map[string]any), val, path+"."+key)...)
				} else if c.strict && !open {
					bad("undocumented key %q", key)
				}
			}
		case "additionalProperties":
			obj, ok := v.(map[string]any)
			if !ok {
				continue
			}
			props, _ := s["properties"].(map[string]any)
			for key, val := range obj {
				if _, ok := props[key]; !ok {
					errs = append(errs, c.check(kv.(map[string]any), val, path+"."+key)...)
				}
			}
		case "items":
			if arr, ok := v.([]any); ok {
				for i, e := range arr {
					errs = append(errs, c.check(kv.(map[string]any), e, fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		case "oneOf":
			matched := 0
			var sub []string
			for _, alt := range kv.([]any) {
				e := c.check(alt.(map[string]any), v, path)
				if len(e) == 0 {
					matched++
				}
				sub = append(sub, e...)
			}
			if matched != 1 {
				bad("matches %d of oneOf, want 1: %s", matched, strings.Join(sub, "; "))
			}
		case "$defs":
		default:
			if !schemaAnnotations[k] {
				bad("schema keyword %q not implemented by the test checker", k)
			}
		}
	}
	return errs
}

func schemaTypeIs(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && !strings.ContainsAny(string(n), ".eE")
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return false
}

// validateDocuments checks every newline-separated document of data.
func validateDocuments(t *testing.T, c *schemaChecker, name string, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for i := 0; dec.More(); i++ {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		for _, e := range c.check(c.root, doc, fmt.Sprintf("%s#%d", name, i)) {
			t.Error(e)
		}
	}
}

func TestSchemaCheckerRejects(t *testing.T) {
	c := loadSchema(t)
	for _, doc := range []string{
		`{"format":"stackdump/v1"}`,
		`{"format":"stackdump/v2","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[],"truncated":false,"warnings":[],"total":0}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[{"id":1.5,"state":"x","stack":[]}],"truncated":false,"warnings":[],"total":0}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[{"id":1,"state":"x","stack":[],"gp":"12"}],"truncated":false,"warnings":[],"total":0}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[{"id":1,"state":"x","stack":[{"fn":"a"}]}],"truncated":false,"warnings":[],"total":0}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"groups":[{"count":1,"ids":[],"states":{"a":"b"},"stack":[]}],"truncated":false,"warnings":[],"total":1}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"groups":[{"count":1,"ids":[],"states":{"a":1},"leaked":-1,"stack":[]}],"truncated":false,"warnings":[],"total":1}`,
		`{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"groups":[{"count":1,"ids":[],"states":{"a":1},"leaked":true,"stack":[]}],"truncated":false,"warnings":[],"total":1}`,
	} {
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if errs := c.check(c.root, v, "doc"); len(errs) == 0 {
			t.Errorf("schema accepts %s", doc)
		}
	}
}
