package native

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// systemdTestJournals is where scripts/systemd-testdata.sh unpacks systemd's test journals
// (Debian 13's systemd-tests package); $SPECWATCH_SYSTEMD_TESTDATA overrides it. Missing, the
// test says so loudly, and fails under SPECWATCH_REQUIRE_JOURNALD (CI, scripts/test.sh).
func systemdTestJournals(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SPECWATCH_SYSTEMD_TESTDATA")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err == nil {
			dir = filepath.Join(cache, "specwatch/systemd-tests/root/usr/lib/systemd/tests/testdata/test-journals")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no-rtc")); err != nil {
		msg := "SYSTEMD'S TEST JOURNALS ARE MISSING (" + dir + "): run scripts/systemd-testdata.sh; the differential test against them did not run"
		if os.Getenv("SPECWATCH_REQUIRE_JOURNALD") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

func unzstd(t testing.TB, b []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiffSystemdTestJournals: systemd's test journals, each file alone and the no-rtc set as
// one directory, read as libsystemd reads them.
func TestDiffSystemdTestJournals(t *testing.T) {
	requireSD(t)
	src := systemdTestJournals(t)
	root := t.TempDir()
	var cases []diffCase
	// no-rtc: a machine's journal without a real-time clock (stamps go backwards)
	set := filepath.Join(root, "no-rtc")
	os.Mkdir(set, 0o755)
	for _, sub := range []string{"no-rtc", "corrupted"} {
		files, _ := filepath.Glob(filepath.Join(src, sub, "*.zst"))
		if len(files) == 0 {
			t.Fatalf("no test journals in %s", filepath.Join(src, sub))
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data := unzstd(t, b)
			name := journalName(strings.TrimSuffix(filepath.Base(f), ".zst"))
			if sub == "no-rtc" {
				writeAged(t, filepath.Join(set, name), data)
			}
			cases = append(cases, diffCase{name: sub + "/" + filepath.Base(f), dir: oneFileDir(t, root, name, data)})
		}
	}
	cases = append(cases, diffCase{name: "no-rtc (the directory)", dir: set})
	// the journals AFL found (systemd's fuzzers): one file each
	b, err := os.ReadFile(filepath.Join(src, "afl-corrupted-journals.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(unzstd(t, b)))
	afl := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		afl++
		cases = append(cases, diffCase{name: "afl/" + filepath.Base(h.Name), dir: oneFileDir(t, root, "x.journal", data)})
	}
	if afl < 600 {
		t.Fatalf("%d AFL journals, want 620", afl)
	}
	runDiff(t, "systemd test journals", cases)
}
