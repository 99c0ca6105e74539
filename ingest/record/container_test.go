package record

import "testing"

// The container of a record as every journal backend names it: CONTAINER_NAME first, else
// CONTAINER_ID cut to the short id; the first of a repeated field wins; JSON and export agree.
func TestContainer(t *testing.T) {
	const full = "785dd59f70368e1e794be76b41f1de27ac8a9e32b828f430d3a3079be2229180"
	for _, c := range []struct {
		name   string
		fields [][2]string
		want   string
	}{
		{"name and id", [][2]string{{"CONTAINER_ID", "785dd59f7036"}, {"CONTAINER_NAME", "sglang-a"}}, "sglang-a"},
		{"id only", [][2]string{{"CONTAINER_ID", "785dd59f7036"}}, "785dd59f7036"},
		{"full id only", [][2]string{{"CONTAINER_ID", full}}, "785dd59f7036"},
		{"repeated name", [][2]string{{"CONTAINER_NAME", "first"}, {"CONTAINER_NAME", "second"}}, "first"},
		{"empty name", [][2]string{{"CONTAINER_NAME", ""}, {"CONTAINER_ID", "785dd59f7036"}}, "785dd59f7036"},
		{"tag and image are not the container", [][2]string{{"CONTAINER_TAG", "sglang"}, {"IMAGE_NAME", "lmsys/sglang"}}, ""},
		{"none", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f Fields
			var s Scratch
			f.Export([]byte("MESSAGE"), []byte("m"), &s)
			for _, kv := range c.fields {
				f.Export([]byte(kv[0]), []byte(kv[1]), &s)
			}
			if got := string(f.Container()); got != c.want {
				t.Errorf("export: container %q, want %q", got, c.want)
			}
			line := `{"MESSAGE":"m"`
			for _, kv := range c.fields {
				line += `,"` + kv[0] + `":"` + kv[1] + `"`
			}
			line += "}"
			var g Fields
			var gs Scratch
			if err := DecodeJSON([]byte(line), &g, &gs); err != nil {
				t.Fatalf("json %s: %v", line, err)
			}
			if got := string(g.Container()); got != c.want {
				t.Errorf("json %s: container %q, want %q", line, got, c.want)
			}
		})
	}
}

// A name journalctl prints as a byte array (it has a control character) and a name given
// several times as an array: decoded like MESSAGE.
func TestContainerJSONForms(t *testing.T) {
	var f Fields
	var s Scratch
	if err := DecodeJSON([]byte(`{"MESSAGE":"m","CONTAINER_NAME":[101,27,120]}`), &f, &s); err != nil {
		t.Fatal(err)
	}
	if got := string(f.Container()); got != "e\x1bx" {
		t.Errorf("byte array: %q", got)
	}
	f, s = Fields{}, Scratch{}
	if err := DecodeJSON([]byte(`{"MESSAGE":"m","CONTAINER_NAME":["a","b"]}`), &f, &s); err != nil {
		t.Fatal(err)
	}
	if got := string(f.Container()); got != "a" {
		t.Errorf("array: %q", got)
	}
}
