package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// build renders the kustomization in dir with kustomize's own library (what `kubectl apply
// -k` and `kustomize build` run), pinned in go.mod, and decodes every object strictly.
func build(t *testing.T, dir string) (*objects, []string) {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	o := &objects{}
	var kinds []string
	for i, r := range rm.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		o.add(t, fmt.Sprintf("kustomize build %s object %d", dir, i), doc)
		kinds = append(kinds, r.GetKind())
	}
	return o, kinds
}

// TestKustomization: deploy/kubernetes/Kustomization lists every manifest of the directory
// once, the namespace first; `kubectl apply -f deploy/kubernetes/` takes the same files in
// name order, which puts the namespace first too (and skips Kustomization: no .yaml); the
// build holds the Namespace first, then the ConfigMap, DaemonSet and Service in it.
func TestKustomization(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "Kustomization"))
	if err != nil {
		t.Fatal(err)
	}
	var kz struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(data, &kz); err != nil {
		t.Fatalf("Kustomization: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "*.yaml"))
	yml, _ := filepath.Glob(filepath.Join("..", "*.yml"))
	files = append(files, yml...)
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	slices.Sort(files)
	if !slices.Equal(kz.Resources, files) {
		t.Errorf("Kustomization resources %v; the directory's manifests, in name order, are %v", kz.Resources, files)
	}
	o, kinds := build(t, "..")
	if len(kinds) == 0 || kinds[0] != "Namespace" {
		t.Errorf("kustomize build: kinds %v, want the Namespace first", kinds)
	}
	if len(files) == 0 || files[0] != "00-namespace.yaml" {
		t.Errorf("files in name order %v: kubectl apply -f would not create the namespace first", files)
	}
	if o.ns == nil || o.cm == nil || o.ds == nil || o.svc == nil || len(kinds) != 4 {
		t.Errorf("kustomize build: %v, want Namespace, ConfigMap, DaemonSet and Service", kinds)
	}
	for _, ns := range []string{o.cm.Namespace, o.ds.Namespace, o.svc.Namespace} {
		if ns != o.ns.Name {
			t.Errorf("an object in namespace %q, not the shipped %q", ns, o.ns.Name)
		}
	}
}

var overlayRE = regexp.MustCompile("(?s)```yaml\n(# kustomization.yaml of the volatile-journal overlay.*?)```")

// TestVolatileJournalOverlay: the overlay docs/kubernetes.md gives for nodes without
// /var/log/journal builds on deploy/kubernetes and drops that mount (and only it).
func TestVolatileJournalOverlay(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "kubernetes.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := overlayRE.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/kubernetes.md: no ```yaml block starting \"# kustomization.yaml of the volatile-journal overlay\"")
	}
	dir := t.TempDir()
	base, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	const remote = "https://github.com/specwatch/specwatch//deploy/kubernetes?ref=main"
	overlay := strings.Replace(string(m[1]), remote, rel, 1)
	if overlay == string(m[1]) {
		t.Fatalf("the overlay does not build on %s:\n%s", remote, m[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ := build(t, dir)
	full, _ := build(t, "..")
	paths := func(o *objects) (vols, mounts []string) {
		for _, v := range o.ds.Spec.Template.Spec.Volumes {
			if v.HostPath != nil {
				vols = append(vols, v.HostPath.Path)
			}
		}
		for _, vm := range o.ds.Spec.Template.Spec.Containers[0].VolumeMounts {
			mounts = append(mounts, vm.MountPath)
		}
		return vols, mounts
	}
	vols, mounts := paths(o)
	fullVols, fullMounts := paths(full)
	if slices.Contains(vols, "/var/log/journal") || slices.Contains(mounts, "/var/log/journal") {
		t.Errorf("the overlay keeps /var/log/journal: volumes %v, mounts %v", vols, mounts)
	}
	if len(vols) != len(fullVols)-1 || len(mounts) != len(fullMounts)-1 || !slices.Contains(vols, "/run/log/journal") {
		t.Errorf("the overlay's volumes %v, mounts %v; the base's %v, %v: want only /var/log/journal gone", vols, mounts, fullVols, fullMounts)
	}
}
