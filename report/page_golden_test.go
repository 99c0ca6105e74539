package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPageOptions(t *testing.T) {
	r, plots := synth()
	live := render(t, r, plots, PageOptions{Refresh: 2500 * time.Millisecond})
	if !strings.Contains(live, `<meta http-equiv="refresh" content="3">`) || !strings.Contains(live, "refreshes every 3 s") {
		t.Error("a live page has no 3 s refresh")
	}
	if strings.Contains(live, "generated") {
		t.Error("a page without Now says when it was generated")
	}
	file := render(t, r, plots, synthOpts)
	if strings.Contains(file, "http-equiv") {
		t.Error("a report file refreshes itself")
	}
	for _, want := range []string{"<title>specwatch — synthetic</title>", "generated 2026-01-02 04:00:00 UTC", "v0.0.0-test"} {
		if !strings.Contains(file, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(file, "<script") || strings.Contains(file, "http://") && !strings.Contains(file, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the page has a script or an external reference")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPageWriteError(t *testing.T) {
	r, plots := synth()
	if err := WritePage(failWriter{}, r, plots, synthOpts); err == nil {
		t.Error("a failing writer gives no error")
	}
}

// The golden page catches any unintended change of markup; regenerate it with -update and
// look at the difference (and the page) before committing.
func TestPageGolden(t *testing.T) {
	r, plots := synth()
	page := render(t, r, plots, synthOpts)
	golden := filepath.Join("testdata", "page.golden.html")
	if updateFiles() {
		if err := os.WriteFile(golden, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if page != string(want) {
		i := 0
		for i < len(page) && i < len(want) && page[i] == want[i] {
			i++
		}
		t.Errorf("page differs from %s at byte %d: got …%s…, want …%s… (go test ./report -run Golden -update)", golden, i,
			page[max(0, i-40):min(len(page), i+40)], want[max(0, i-40):min(len(want), i+40)])
	}
}
