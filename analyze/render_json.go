package analyze

import (
	"encoding/json"
	"io"
)

// JSONSchema names the JSON form of summaries (docs/analyze.md).
const JSONSchema = "stackdump-analysis/v1"

// jsonDocument is what WriteJSON writes.
type jsonDocument struct {
	Schema string     `json:"schema"`
	Dumps  []*Summary `json:"dumps"`
}

// WriteJSON writes summaries as one indented JSON document:
// {"schema": "stackdump-analysis/v1", "dumps": [summary, …]}.
func WriteJSON(w io.Writer, summaries ...*Summary) error {
	if summaries == nil {
		summaries = []*Summary{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonDocument{Schema: JSONSchema, Dumps: summaries})
}
