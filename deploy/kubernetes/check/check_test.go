// Package check tests deploy/kubernetes/ against the Kubernetes API's Go types (k8s.io/api and
// the Prometheus Operator's monitoring/v1): every document is decoded strictly, so an unknown,
// misspelt or misplaced field fails as the API server's strict field validation would; then
// the objects are checked against each other and against what docs/kubernetes.md promises.
package check

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifests are the files a user applies: Kustomization's resources (`kubectl apply -k
// deploy/kubernetes/`, or `-f`, which takes the same files in name order), then one of the
// monitors, which need the Prometheus Operator.
var manifests = []string{"00-namespace.yaml", "10-configmap.yaml", "20-daemonset.yaml", "30-service.yaml", "servicemonitor/servicemonitor.yaml", "podmonitor/podmonitor.yaml"}

type objects struct {
	ns   *corev1.Namespace
	cm   *corev1.ConfigMap
	ds   *appsv1.DaemonSet
	svc  *corev1.Service
	sm   *monitoringv1.ServiceMonitor
	pm   *monitoringv1.PodMonitor
	seen []string
}

// decode reads every document of every manifest into its typed object, strictly.
func decode(t *testing.T) *objects {
	t.Helper()
	o := &objects{}
	for _, name := range manifests {
		data, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			o.add(t, fmt.Sprintf("%s document %d", name, i), doc)
		}
	}
	if o.ns == nil || o.cm == nil || o.ds == nil || o.svc == nil || o.sm == nil || o.pm == nil {
		t.Fatalf("manifests hold %v; want a Namespace, ConfigMap, DaemonSet, Service, ServiceMonitor and PodMonitor", o.seen)
	}
	return o
}

// add decodes one YAML document into its typed object, strictly; where names it.
func (o *objects) add(t *testing.T, where string, doc []byte) {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var dst any
	switch head.APIVersion + " " + head.Kind {
	case "v1 Namespace":
		o.ns = &corev1.Namespace{}
		dst = o.ns
	case "v1 ConfigMap":
		o.cm = &corev1.ConfigMap{}
		dst = o.cm
	case "apps/v1 DaemonSet":
		o.ds = &appsv1.DaemonSet{}
		dst = o.ds
	case "v1 Service":
		o.svc = &corev1.Service{}
		dst = o.svc
	case "monitoring.coreos.com/v1 ServiceMonitor":
		o.sm = &monitoringv1.ServiceMonitor{}
		dst = o.sm
	case "monitoring.coreos.com/v1 PodMonitor":
		o.pm = &monitoringv1.PodMonitor{}
		dst = o.pm
	default:
		t.Fatalf("%s: unexpected %s %s", where, head.APIVersion, head.Kind)
	}
	if err := decodeStrict(doc, dst); err != nil {
		t.Fatalf("%s (%s): %v", where, head.Kind, err)
	}
	o.seen = append(o.seen, head.Kind)
}

func TestManifestsDecodeStrictly(t *testing.T) {
	o := decode(t)
	for _, m := range []struct {
		kind string
		meta interface {
			GetName() string
			GetNamespace() string
			GetLabels() map[string]string
		}
	}{{"ConfigMap", o.cm}, {"DaemonSet", o.ds}, {"Service", o.svc}, {"ServiceMonitor", o.sm}, {"PodMonitor", o.pm}} {
		if m.meta.GetNamespace() != o.ns.Name {
			t.Errorf("%s %s is in namespace %q, want %q (the Namespace shipped)", m.kind, m.meta.GetName(), m.meta.GetNamespace(), o.ns.Name)
		}
		if errs := validation.ValidateLabels(m.meta.GetLabels(), field.NewPath(m.kind, "metadata", "labels")); len(errs) > 0 {
			t.Errorf("%s: %v", m.kind, errs.ToAggregate())
		}
	}
}

func TestDaemonSet(t *testing.T) {
	o := decode(t)
	ds := o.ds
	pod := ds.Spec.Template
	sel, err := metaSelector(ds.Spec.Selector.MatchLabels)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Fatalf("the DaemonSet's selector %v does not select its pods' labels %v (%v)", ds.Spec.Selector, pod.Labels, err)
	}
	spec := pod.Spec
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Error("the service account token is mounted: specwatch calls no Kubernetes API, so it needs none")
	}
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		t.Error("the pod shares a host namespace")
	}
	if sc := spec.SecurityContext; sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("no RuntimeDefault seccomp profile")
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
			t.Errorf("%s: request %v, limit %v: want both, request ≤ limit", r, req.String(), lim.String())
		}
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("no container securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("the root filesystem is writable")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("privileged")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v, want drop [ALL] and none added", sc.Capabilities)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/-/ready" || ports[p.HTTPGet.Port.String()] == 0 {
		t.Errorf("readiness probe %+v: want an HTTP GET of /-/ready on a named container port", p)
	}
	if p := c.LivenessProbe; p != nil && (p.HTTPGet == nil || p.HTTPGet.Path != "/-/healthy") {
		t.Errorf("liveness probe %+v: want /-/healthy (liveness is not readiness)", p)
	}

	// Every host path but the state directory is mounted read-only; the ones the docs name
	// are there.
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	mounted := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			t.Errorf("mount %s names no volume", m.Name)
			continue
		}
		if v.HostPath != nil {
			mounted[v.HostPath.Path] = m
			if !m.ReadOnly && m.MountPath != "/var/lib/specwatch" {
				t.Errorf("host path %s is mounted writable at %s", v.HostPath.Path, m.MountPath)
			}
		}
	}
	for _, p := range []string{"/var/log/journal", "/run/log/journal", "/var/log/pods", "/etc/machine-id"} {
		if m, ok := mounted[p]; !ok || !m.ReadOnly || m.MountPath != p {
			t.Errorf("host path %s: mount %+v, want it read-only at the same path", p, m)
		}
	}
	// The journal directories are mounted as they are, never created: journald with
	// Storage=auto turns a volatile journal persistent once /var/log/journal exists.
	for _, v := range spec.Volumes {
		if v.HostPath == nil || !strings.Contains(v.HostPath.Path, "/log/journal") {
			continue
		}
		if typ := v.HostPath.Type; typ == nil || *typ != corev1.HostPathDirectory {
			t.Errorf("host path %s: type %q, want Directory (DirectoryOrCreate or an unset type creates it)", v.HostPath.Path, ptrString(typ))
		}
	}

	// NODE_NAME names the node for file, scrape and forward-pass series (their host label);
	// without it the host is the pod's name.
	nodeName := false
	for _, e := range c.Env {
		if e.Name == "NODE_NAME" {
			nodeName = e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" && e.Value == ""
		}
	}
	if !nodeName {
		t.Errorf("env %+v: want NODE_NAME from fieldRef spec.nodeName", c.Env)
	}

	if _, ok := mounted["/var/lib/specwatch"]; !ok {
		t.Error("the state directory (the cursor) is not on the host: a new pod would start at the journal's tail")
	}

	// The config the container reads is the ConfigMap's.
	var cfgMount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		if v := volumes[m.Name]; v.ConfigMap != nil && v.ConfigMap.Name == o.cm.Name {
			cfgMount = &c.VolumeMounts[i]
		}
	}
	if cfgMount == nil {
		t.Fatal("the ConfigMap is not mounted")
	}
	want := "--config.file=" + cfgMount.MountPath + "/specwatch.yaml"
	if !slices.Contains(c.Args, want) || o.cm.Data["specwatch.yaml"] == "" {
		t.Errorf("args %v: want %s, from the ConfigMap's specwatch.yaml", c.Args, want)
	}
	if !strings.Contains(o.cm.Data["specwatch.yaml"], fmt.Sprintf(":%d", ports["metrics"])) {
		t.Errorf("the config does not listen on the metrics port %d", ports["metrics"])
	}
}

func TestServiceAndMonitors(t *testing.T) {
	o := decode(t)
	pod := o.ds.Spec.Template
	ports := map[string]bool{}
	for _, p := range pod.Spec.Containers[0].Ports {
		ports[p.Name] = true
	}
	if !labels.SelectorFromSet(o.svc.Spec.Selector).Matches(labels.Set(pod.Labels)) || len(o.svc.Spec.Selector) == 0 {
		t.Errorf("the Service's selector %v does not select the pods %v", o.svc.Spec.Selector, pod.Labels)
	}
	svcPorts := map[string]bool{}
	for _, p := range o.svc.Spec.Ports {
		svcPorts[p.Name] = true
		if !ports[p.TargetPort.String()] {
			t.Errorf("Service port %s targets %s, which is no named container port", p.Name, p.TargetPort.String())
		}
	}
	sel, err := metaSelector(o.sm.Spec.Selector.MatchLabels)
	if err != nil || !sel.Matches(labels.Set(o.svc.Labels)) {
		t.Errorf("the ServiceMonitor's selector %v does not select the Service %v", o.sm.Spec.Selector, o.svc.Labels)
	}
	for _, e := range o.sm.Spec.Endpoints {
		if !svcPorts[e.Port] || e.Path != "/metrics" {
			t.Errorf("ServiceMonitor endpoint port %q path %q: want a Service port and /metrics", e.Port, e.Path)
		}
	}
	sel, err = metaSelector(o.pm.Spec.Selector.MatchLabels)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("the PodMonitor's selector %v does not select the pods %v", o.pm.Spec.Selector, pod.Labels)
	}
	for _, e := range o.pm.Spec.PodMetricsEndpoints {
		if e.Port == nil || !ports[*e.Port] || e.Path != "/metrics" {
			t.Errorf("PodMonitor endpoint port %v path %q: want a named container port and /metrics", e.Port, e.Path)
		}
	}
	if len(o.sm.Spec.Endpoints) == 0 || len(o.pm.Spec.PodMetricsEndpoints) == 0 {
		t.Error("a monitor without endpoints")
	}
}

// decodeStrict decodes a YAML document as the API server's strict field validation does:
// field names match case-sensitively (encoding/json, and so yaml.UnmarshalStrict, would take
// readOnlyRootFileSystem for readOnlyRootFilesystem), and unknown or duplicate fields fail.
func decodeStrict(doc []byte, dst any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(js, dst, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

func metaSelector(m map[string]string) (labels.Selector, error) {
	if len(m) == 0 {
		return nil, fmt.Errorf("empty selector")
	}
	return labels.SelectorFromSet(m), nil
}

func ptrString[T ~string](p *T) string {
	if p == nil {
		return "(unset)"
	}
	return string(*p)
}
