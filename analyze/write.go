package analyze

import (
	"errors"
	"fmt"
	"io"

	"github.com/specwatch/specwatch/report"
)

// Files reads each path in turn ("-": standard input). An input that cannot be read (a
// directory, a file deleted meanwhile) is passed to skipped and the others are read, so that
// the report covers them; Files fails only when none could be read.
func (a *Analysis) Files(paths []string, skipped func(error)) (failed int, err error) {
	var errs []error
	for _, p := range paths {
		if err := a.File(p); err != nil {
			skipped(err)
			errs = append(errs, err)
		}
	}
	if len(paths) > 0 && len(errs) == len(paths) {
		return len(errs), fmt.Errorf("no input could be read: %w", errors.Join(errs...))
	}
	return len(errs), nil
}

// Write writes the report as "text", "json" or "html" (the self-contained page with its plots,
// titled and versioned by page).
func (a *Analysis) Write(w io.Writer, format string, page report.PageOptions) error {
	switch format {
	case "html":
		return report.WritePage(w, a.Report(), a.Plots(), page)
	case "json":
		return report.WriteJSON(w, a.Report(), report.JSONOptions{Indent: "  "})
	case "text":
		return report.WriteTextWith(w, a.Report(), report.TextOptions{Color: page.Color})
	}
	return fmt.Errorf("report format %q: want text, json or html", format)
}
