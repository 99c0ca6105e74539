package report

import (
	"encoding/json"
	"io"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/words"
)

// JSONOptions configure WriteJSON.
type JSONOptions struct {
	// Indent indents each level by this string: `specwatch analyze --format json` uses two
	// spaces, for people; empty writes the report on one line, as /api/v1/report serves it.
	Indent string
}

// WriteJSON writes r as one JSON value and a newline: the schema of `specwatch analyze
// --format json` and of /api/v1/report, model.Report's encoding.
func WriteJSON(w io.Writer, r model.Report, opts JSONOptions) error {
	words.Fill(&r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", opts.Indent)
	return enc.Encode(r)
}
