package docs

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	// inlineTarget is the target of an inline link or image, [text](target "title"); nested
	// forms ([![img](a)](b)) yield both targets.
	inlineTarget = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)`)
	// refTarget is a reference definition, [label]: target.
	refTarget = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)`)
	// htmlTarget is an href or src attribute of inline HTML.
	htmlTarget = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*"([^"]*)"`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("(`+)[^`]*?`+")
	// scheme starts an absolute URL (https:, mailto:).
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// drive starts a Windows path (C:\, C:/).
	drive = regexp.MustCompile(`^[a-zA-Z]:[\\/]`)
	// htmlAnchor is an explicit anchor in inline HTML.
	htmlAnchor = regexp.MustCompile(`(?i)<a\s+(?:name|id)\s*=\s*"([^"]+)"`)
	// headingLink keeps a link's text in a heading.
	headingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// TestMarkdownLinks reads every markdown file of the repository: every relative link (and
// image) must name a file inside the repository that exists, with an existing heading when it
// names one; no link may be an absolute filesystem path; and no file may point at ../shared,
// which a clone does not have.
func TestMarkdownLinks(t *testing.T) {
	root := repoRoot(t)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	sawReadme := false
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		sawReadme = sawReadme || rel == "README.md"
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Contains(text, "../shared") {
			t.Errorf("%s mentions ../shared, which is outside the repository", rel)
		}
		for _, l := range linkTargets(text) {
			links++
			if msg := checkTarget(root, f, l.target); msg != "" {
				t.Errorf("%s:%d: link %q: %s", rel, l.line, l.target, msg)
			}
		}
	}
	if !sawReadme || links < 20 {
		t.Fatalf("read %d markdown files with %d links (README.md seen: %v): the walk is broken", len(files), links, sawReadme)
	}
	t.Logf("%d markdown files, %d links checked", len(files), links)
}

type link struct {
	line   int
	target string
}

// linkTargets returns the link targets of a markdown text, outside fenced code blocks and
// code spans.
func linkTargets(text string) []link {
	var out []link
	outsideFences(text, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, re := range []*regexp.Regexp{inlineTarget, refTarget, htmlTarget} {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				out = append(out, link{line: n, target: m[1]})
			}
		}
	})
	return out
}

// outsideFences calls f with the number and text of each line of a markdown text that is not
// inside a fenced code block (``` or ~~~).
func outsideFences(text string, f func(n int, line string)) {
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			f(i+1, line)
		}
	}
}

// checkTarget returns why target, a link in file, is wrong, or "".
func checkTarget(root, file, target string) string {
	switch {
	case target == "":
		return "empty target"
	case strings.HasPrefix(target, "/"), strings.HasPrefix(target, `\`), drive.MatchString(target):
		return "an absolute filesystem path; link relative to this file"
	case strings.HasPrefix(strings.ToLower(target), "file:"):
		return "a file: URL; link relative to this file"
	case scheme.MatchString(target):
		// The docs are read where the network may not be (a GPU host, the package's
		// /usr/share/doc): name the project in words instead of linking out.
		return "a link outside the repository; name it in words"
	}
	path, frag, _ := strings.Cut(target, "#")
	path, _, _ = strings.Cut(path, "?")
	if path == "" {
		return checkAnchor(file, frag)
	}
	p, err := url.PathUnescape(path)
	if err != nil {
		return "bad escape: " + err.Error()
	}
	abs := filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "leaves the repository"
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "no such file in the repository"
	}
	if frag != "" && !st.IsDir() && strings.EqualFold(filepath.Ext(abs), ".md") {
		return checkAnchor(abs, frag)
	}
	return ""
}

// checkAnchor returns why frag names no heading or anchor of the markdown file, or "".
func checkAnchor(file, frag string) string {
	if frag == "" {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if anchors(string(b))[strings.ToLower(frag)] {
		return ""
	}
	return "no heading or anchor #" + frag + " in " + filepath.Base(file)
}

// anchors are the fragment names GitHub gives a markdown file's headings (lower case,
// punctuation dropped, blanks as '-', repeats numbered), plus explicit HTML anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	outsideFences(text, func(_ int, line string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[strings.ToLower(m[1])] = true
		}
		if !strings.HasPrefix(line, "#") {
			return
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		h = headingLink.ReplaceAllString(h, "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	})
	return out
}

// TestLinkChecker checks the checker on what it must refuse and accept.
func TestLinkChecker(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	must(os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("# Title\n\n## Two words `here`\n\n## Two words here\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "docs", "demo.png"), nil, 0o644))
	readme := filepath.Join(root, "README.md")
	text := "see [a](docs/a.md#two-words-here-1), ![x](docs/demo.png), [web](https://example.com/x),\n" +
		"[self](#intro), `[code](nowhere.md)`, [bad](../shared/DESIGN.md), [abs](/etc/passwd),\n" +
		"[gone](docs/b.md), [frag](docs/a.md#nope)\n```\n[fenced](nowhere.md)\n```\n[ref]: docs/a.md\n<a id=\"intro\"></a>\n"
	must(os.WriteFile(readme, []byte(text), 0o644))
	got := map[string]string{}
	for _, l := range linkTargets(text) {
		got[l.target] = checkTarget(root, readme, l.target)
	}
	for target, ok := range map[string]bool{
		"docs/a.md#two-words-here-1": true, "docs/demo.png": true, "https://example.com/x": false,
		"#intro": true, "docs/a.md": true,
		"../shared/DESIGN.md": false, "/etc/passwd": false, "docs/b.md": false, "docs/a.md#nope": false,
	} {
		msg, found := got[target]
		if !found {
			t.Errorf("link %q not found (got %v)", target, got)
			continue
		}
		if (msg == "") != ok {
			t.Errorf("link %q: accepted %v, want %v (%s)", target, msg == "", ok, msg)
		}
	}
	for _, hidden := range []string{"nowhere.md"} {
		if _, found := got[hidden]; found {
			t.Errorf("link %q inside code was read as a link", hidden)
		}
	}
}
