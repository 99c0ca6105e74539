package kubepods

import (
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/specwatch/specwatch/ingest/scrape"
)

// The annotations a pod carries to be scraped: Prometheus's prometheus.io/* convention under
// specwatch's own prefix, so that the node's other exporters, annotated for Prometheus, are
// not scraped by every specwatch too.
const (
	annScrape    = "specwatch.io/scrape"    // "true" to scrape the pod
	annPort      = "specwatch.io/port"      // the port, or the name of a container port
	annPath      = "specwatch.io/path"      // default /metrics
	annScheme    = "specwatch.io/scheme"    // http (default) or https
	annContainer = "specwatch.io/container" // the container whose logs the series join
)

// podList is the part of a core/v1 PodList the discovery reads.
type podList struct {
	Items []pod `json:"items"`
}

type pod struct {
	Metadata struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		NodeName   string `json:"nodeName"`
		Containers []struct {
			Name  string `json:"name"`
			Ports []struct {
				Name          string `json:"name"`
				ContainerPort int    `json:"containerPort"`
			} `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
		PodIP string `json:"podIP"`
	} `json:"status"`
}

// target is the pod's scrape target: ok is false for a pod that is not annotated, or not
// running yet (no IP); err says why an annotated pod cannot be scraped.
func (d *Discoverer) target(p *pod) (t scrape.Target, ok bool, err error) {
	a := p.Metadata.Annotations
	if a[annScrape] != "true" {
		return t, false, nil
	}
	if p.Status.Phase != "Running" || p.Status.PodIP == "" {
		return t, false, nil
	}
	name := p.Metadata.Namespace + "/" + p.Metadata.Name
	port, ctr, err := portOf(p, a[annPort])
	if err != nil {
		return t, false, fmt.Errorf("pod %s: %w", name, err)
	}
	if c := a[annContainer]; c != "" {
		ctr = c
	}
	scheme := a[annScheme]
	switch scheme {
	case "":
		scheme = "http"
	case "http", "https":
	default:
		return t, false, fmt.Errorf("pod %s: %s %q: want http or https", name, annScheme, scheme)
	}
	path := a[annPath]
	if path == "" {
		path = "/metrics"
	}
	if path[0] != '/' {
		return t, false, fmt.Errorf("pod %s: %s %q: want an absolute path", name, annPath, path)
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(p.Status.PodIP, strconv.Itoa(port)), Path: path}
	return scrape.Target{URL: u.String(), Interval: d.o.Interval, Timeout: d.o.Timeout,
		Labels: map[string]string{"host": d.o.Node, "namespace": p.Metadata.Namespace, "pod": p.Metadata.Name, "container": ctr}}, true, nil
}

// portOf resolves the port annotation: a number, or the name of a container port. Without the
// annotation the pod must declare exactly one container port. The container is the one that
// declares the port, "" when none does.
func portOf(p *pod, ann string) (int, string, error) {
	type cport struct {
		ctr  string
		port int
	}
	var all []cport
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if ann == "" || cp.Name == ann || strconv.Itoa(cp.ContainerPort) == ann {
				all = append(all, cport{c.Name, cp.ContainerPort})
			}
		}
	}
	if ann != "" {
		if n, err := strconv.Atoi(ann); err == nil {
			if n <= 0 || n > 65535 {
				return 0, "", fmt.Errorf("%s %q: not a port", annPort, ann)
			}
			ctr := ""
			if len(all) == 1 {
				ctr = all[0].ctr
			}
			return n, ctr, nil
		}
		if len(all) != 1 {
			return 0, "", fmt.Errorf("%s %q: %d container ports of that name, want one", annPort, ann, len(all))
		}
	}
	switch {
	case len(all) == 0:
		return 0, "", fmt.Errorf("no %s annotation and no container port", annPort)
	case len(all) > 1:
		return 0, "", fmt.Errorf("no %s annotation and %d container ports: say which", annPort, len(all))
	}
	if all[0].port <= 0 || all[0].port > 65535 {
		return 0, "", fmt.Errorf("container port %d: not a port", all[0].port)
	}
	return all[0].port, all[0].ctr, nil
}
