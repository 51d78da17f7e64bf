package report

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"sync"
)

// The page is assets/page.html with the style sheet and the two scripts
// pasted in; the title and the data are filled in per report.
//
//go:embed assets/page.html assets/report.css assets/guard.js assets/report.js
var assets embed.FS

// pageParts is the page split around the title and the data.
type pageParts struct {
	head, mid, tail string // head TITLE mid DATA tail
}

var loadPage = sync.OnceValues(func() (pageParts, error) {
	read := func(name string) string {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			panic(err) // embedded: cannot fail
		}
		return string(b)
	}
	page, css, guard, app := read("page.html"), read("report.css"), read("guard.js"), read("report.js")
	for name, s := range map[string]string{"report.css": css, "guard.js": guard, "report.js": app} {
		if strings.Contains(strings.ToLower(s), "</s") || strings.Contains(s, "<!--") {
			return pageParts{}, fmt.Errorf("asset %s contains a sequence that would end its element", name)
		}
	}
	csp := "default-src 'none'; script-src " + scriptHash(guard) + " " + scriptHash(app) +
		"; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
	page = strings.NewReplacer(
		"{{CSP}}", csp,
		"{{CSS}}", css,
		"{{GUARD}}", guard,
		"{{APP}}", app,
	).Replace(page)
	head, rest, ok1 := strings.Cut(page, "{{TITLE}}")
	mid, tail, ok2 := strings.Cut(rest, "{{DATA}}")
	if !ok1 || !ok2 {
		return pageParts{}, fmt.Errorf("page template lacks {{TITLE}} or {{DATA}}")
	}
	return pageParts{head, mid, tail}, nil
})

// scriptHash is the CSP source expression allowing exactly the inline
// script s.
func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// writePage writes the page of doc. The data goes into a
// <script type="application/json"> element: encoding/json escapes <, >
// and & (and U+2028, U+2029) inside strings, and JSON has no "<" outside
// them, so no text of a dump can end the element or open another one.
func writePage(w *bufio.Writer, doc *pageDoc) error {
	p, err := loadPage()
	if err != nil {
		return err
	}
	w.WriteString(p.head)
	w.WriteString(html.EscapeString(doc.Title))
	w.WriteString(p.mid)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding the page data: %w", err)
	}
	_, err = w.WriteString(p.tail)
	return err
}
