package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts { // one gzip member each, as `cat a.gz b.gz` makes
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(p))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, path, want string }{
		{"plain", write("a.log", []byte("a\nb\n")), "a\nb\n"},
		{"empty", write("empty.log", nil), ""},
		{"one byte", write("one.log", []byte("x")), "x"},
		{"gzip", write("b.log.gz", gz(t, "c\n")), "c\n"},
		{"gzip members", write("c.log.gz", gz(t, "d\n", "e\n")), "d\ne\n"},
		{"gzip without the name", write("d.log.1", gz(t, "f\n")), "f\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil || string(got) != tc.want {
				t.Errorf("read %q, %v; want %q", got, err, tc.want)
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}

	missing := filepath.Join(dir, "missing.log")
	if _, err := Open(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open(missing) = %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(dir) = %v", err)
	}

	// Damage: what decoded is read (as gzip -dc writes it), the input ends there, and Damage
	// names the path and the kind; zero padding after the last member is not damage.
	two := gz(t, "g\n", "h\n")
	sum := gz(t, "g\n")
	sum[len(sum)-5] ^= 0xff // the length in the trailer
	big := gz(t, strings.Repeat("line of text\n", 4096))
	for _, tc := range []struct {
		name, want, damage string
		data               []byte
	}{
		{"zero padding", "g\nh\n", "", append(bytes.Clone(two), make([]byte, 4096)...)},
		{"trailing garbage", "g\nh\n", "trailing garbage", append(bytes.Clone(two), "not gzip"...)},
		{"checksum", "g\n", "checksum", sum},
		{"truncated member", "", "truncated gzip member", big[:len(big)/2]},
		{"truncated second member", "g\nh\n", "truncated", two[:len(two)-6]}, // its trailer cut: the data decoded
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "-")+".gz", tc.data)
			in, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			got, err := io.ReadAll(onlyReader(in))
			if err != nil {
				t.Fatalf("read: %v, want the decoded part and io.EOF", err)
			}
			if tc.want != "" && string(got) != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if tc.name == "truncated member" && (len(got) == 0 || !strings.HasPrefix(strings.Repeat("line of text\n", 4096), string(got))) {
				t.Errorf("read %d bytes of the truncated member, want a prefix of it", len(got))
			}
			d := in.Damage()
			switch {
			case tc.damage == "" && d != nil:
				t.Errorf("damage %v, want none", d)
			case tc.damage != "" && (d == nil || !strings.Contains(d.Error(), tc.damage) || !strings.Contains(d.Error(), p)):
				t.Errorf("damage %v, want it to name %s and %q", d, p, tc.damage)
			}
		})
	}
}

// onlyReader hides other methods so that io.ReadAll sees only Read.
func onlyReader(r io.Reader) io.Reader { return struct{ io.Reader }{r} }

func TestOpenStdin(t *testing.T) {
	if _, err := os.Stdin.Stat(); err != nil {
		t.Skipf("no stdin here: %v", err)
	}
	rc, err := Open("-")
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing the reader must leave the process's stdin usable.
	if _, err := os.Stdin.Stat(); err != nil {
		t.Errorf("stdin closed: %v", err)
	}
}

// A .gz fixture goes through Open and the Reader like any file.
func TestOpenThenRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal.export.gz")
	if err := os.WriteFile(p, gz(t, string(fixture(t, "journal.export"))), 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rd := NewReader(rc, ReaderOptions{Name: p})
	if got := drain(t, rd); rd.Shape() != Export || len(got) != 10 {
		t.Errorf("shape %v, %d entries", rd.Shape(), len(got))
	}
}
