package config

// Reading the config file strictly: a size cap, unknown keys refused, and the YAML library's
// "line N" errors turned into the dotted key an operator can find.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/internal/readfile"
	"go.yaml.in/yaml/v3"
)

// maxConfigBytes bounds the file: a config is a few KiB, and the YAML library spends seconds
// and hundreds of MiB on a 10 MiB one (a log or a binary given by mistake, /dev/zero).
const maxConfigBytes = 1 << 20

// readConfig refuses what cannot be a config (a FIFO, a device, a directory, a file over the
// bound) without blocking: a reload that hung on a FIFO ignored every later SIGHUP.
func readConfig(path string) ([]byte, error) { return readfile.Regular(path, maxConfigBytes) }

var yamlLine = regexp.MustCompile(`line (\d+): `)

// decodeStrict decodes with unknown keys refused, and rewrites the YAML library's "line N:"
// into the dotted key at that line, so an operator reads "model.window: cannot unmarshal …".
// It also refuses what the library lets through: a second document (never read) and a
// fraction where an integer is expected (truncated).
func decodeStrict(data []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(cfg)
	if errors.Is(err, io.EOF) { // an empty file is an empty config
		return nil
	}
	var root yaml.Node
	if err == nil {
		var next yaml.Node
		if err := dec.Decode(&next); !errors.Is(err, io.EOF) && (err != nil || !isNull(&next)) {
			return errors.New("more than one YAML document (\"---\"): specwatch reads only the first")
		}
		if yaml.Unmarshal(data, &root) == nil {
			if bad := fractionForInt(&root, reflect.TypeFor[Config](), ""); bad != "" {
				return fmt.Errorf("%s: want a whole number", bad)
			}
		}
		return nil
	}
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	keys := map[int][]lineKey{}
	keyLines(&root, "", keys)
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		m := yamlLine.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(l[m[2]:m[3]])
		if k := keyOf(keys[n], l[m[1]:]); k != "" {
			lines[i] = l[:m[0]] + k + " (line " + strconv.Itoa(n) + "): " + plainYAML(l[m[1]:])
		}
	}
	msg := strings.Join(lines, "\n")
	// "yaml: unmarshal errors:" heads the list the library returns; the list is the message.
	if rest, ok := strings.CutPrefix(msg, "yaml: unmarshal errors:\n"); ok {
		msg = "invalid keys or values:\n" + rest
	}
	return errors.New(msg)
}

// lineKey is a key path whose key or value is on a line, with its value node.
type lineKey struct {
	path, key string
	val       *yaml.Node
}

// keyLines maps each line that holds a key or a value to its dotted key paths (several in
// flow style: "model: {window: x, max_series: 9}").
func keyLines(n *yaml.Node, prefix string, out map[int][]lineKey) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keyLines(c, prefix, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			out[k.Line] = append(out[k.Line], lineKey{path, k.Value, v})
			if v.Line != k.Line {
				out[v.Line] = append(out[v.Line], lineKey{path, k.Value, v})
			}
			keyLines(v, path, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			out[c.Line] = append(out[c.Line], lineKey{p, "", c})
			keyLines(c, p, out)
		}
	}
}

// keyOf picks, among the keys of one line, the one an error message is about: the key it
// names, the value it quotes (shortened as the library does), or the innermost list or map it
// found in place of a scalar. Several candidates are all named.
func keyOf(cands []lineKey, msg string) string {
	if len(cands) == 1 {
		return cands[0].path
	}
	var hits []string
	var inner string
	for _, c := range cands {
		v := c.val.Value
		if len(v) > 10 {
			v = v[:7] + "..."
		}
		switch {
		case c.key != "" && (strings.Contains(msg, "field "+c.key+" not found") || strings.Contains(msg, strconv.Quote(c.key)+" already")),
			c.val.Kind == yaml.ScalarNode && strings.Contains(msg, "`"+v+"`"):
			hits = append(hits, c.path)
		case c.val.Kind == yaml.SequenceNode && strings.Contains(msg, "!!seq into"),
			c.val.Kind == yaml.MappingNode && strings.Contains(msg, "!!map into"):
			inner = c.path
		}
	}
	if len(hits) == 0 && inner != "" {
		return inner
	}
	if len(hits) == 0 {
		for _, c := range cands {
			hits = append(hits, c.path)
		}
	}
	return strings.Join(hits, " or ")
}

// isNull reports whether a document is empty ("---" at the end of a file).
func isNull(n *yaml.Node) bool {
	return n.Kind == 0 || n.Kind == yaml.DocumentNode && (len(n.Content) == 0 || n.Content[0].ShortTag() == "!!null")
}

// fractionForInt finds a number with a fraction where the config wants an integer, which the
// YAML library would truncate ("max_series: 1.5" → 1), and returns "key: value".
func fractionForInt(n *yaml.Node, t reflect.Type, path string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if k := fractionForInt(c, t, path); k != "" {
				return k
			}
		}
	case yaml.ScalarNode:
		if t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 && n.ShortTag() == "!!float" {
			if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err != nil || f != math.Trunc(f) {
				return path + ": " + n.Value
			}
		}
	case yaml.SequenceNode:
		if t.Kind() == reflect.Slice {
			for i, c := range n.Content {
				if k := fractionForInt(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); k != "" {
					return k
				}
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, ft := n.Content[i].Value, reflect.Type(nil)
			switch t.Kind() {
			case reflect.Map:
				ft = t.Elem()
			case reflect.Struct:
				for j := range t.NumField() {
					if tag, _, _ := strings.Cut(t.Field(j).Tag.Get("yaml"), ","); tag == key {
						ft = t.Field(j).Type
					}
				}
			}
			p := key
			if path != "" {
				p = path + "." + key
			}
			if ft != nil {
				if k := fractionForInt(n.Content[i+1], ft, p); k != "" {
					return k
				}
			}
		}
	}
	return ""
}
