// Package kubepods finds the engines' /metrics endpoints among the pods of one Kubernetes node,
// from the pods' annotations, so that a DaemonSet of specwatch scrapes exactly the engines that
// run beside it and nothing it would have to be told about.
//
// It lists the node's pods from the API server (GET /api/v1/pods with a spec.nodeName field
// selector: the kubelet's own view, one small request per refresh) with the pod's service
// account. The client is plain net/http and encoding/json rather than client-go: a list of pods
// is one GET, and client-go would add tens of megabytes of dependencies to a daemon that sits on
// GPU hosts.
package kubepods

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
)

// The in-cluster defaults: where Kubernetes mounts a pod's service account, and the API
// server's name inside the cluster.
const (
	DefaultAPIServer = "https://kubernetes.default.svc"
	DefaultTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	DefaultCAFile    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// DefaultMaxTargets bounds the targets of one node: a node runs 110 pods by default, and a GPU
// node serves a handful of engines.
const DefaultMaxTargets = 64

// maxListBytes bounds one pod list: a node runs at most a few hundred pods (110 by default),
// each a few kilobytes of JSON.
const maxListBytes = 16 << 20

// Options configure New.
type Options struct {
	// APIServer is the API server's URL; "" is DefaultAPIServer.
	APIServer string
	// Token is the bearer token (the service account's, read from DefaultTokenFile by the
	// caller); CA verifies the API server (nil: the system roots).
	Token string
	CA    *x509.CertPool
	// Node is the node whose pods are listed (the downward API's spec.nodeName).
	Node string
	// Interval and Timeout are every discovered target's.
	Interval, Timeout time.Duration
	// Client overrides the HTTP client (tests); nil builds one for APIServer and CA.
	Client *http.Client
	// MaxTargets bounds the targets returned (0: DefaultMaxTargets); the annotated pods past
	// it are named in one error, never scraped.
	MaxTargets int
}

// Discoverer lists the node's annotated pods. Targets may be called from any goroutine, one
// call at a time.
type Discoverer struct {
	o      Options
	list   string
	client *http.Client
}

// New checks the options and builds a Discoverer; it makes no request.
func New(o Options) (*Discoverer, error) {
	if o.APIServer == "" {
		o.APIServer = DefaultAPIServer
	}
	u, err := url.Parse(o.APIServer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("kubernetes API server %q: want an http(s) URL", o.APIServer)
	}
	if o.Node == "" {
		return nil, errors.New("kubernetes pod discovery: no node name (set NODE_NAME from the downward API's spec.nodeName)")
	}
	if o.Interval <= 0 || o.Timeout <= 0 {
		return nil, errors.New("kubernetes pod discovery: interval and timeout must be positive")
	}
	if o.MaxTargets <= 0 {
		o.MaxTargets = DefaultMaxTargets
	}
	q := url.Values{"fieldSelector": {"spec.nodeName=" + o.Node}}
	d := &Discoverer{o: o, list: strings.TrimRight(o.APIServer, "/") + "/api/v1/pods?" + q.Encode(), client: o.Client}
	if d.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: o.CA, MinVersion: tls.VersionTLS12}
		d.client = &http.Client{Transport: tr, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return d, nil
}

// ReadToken reads a service account token file, without its trailing newline.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("service account token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadCA reads the API server's CA bundle.
func ReadCA(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubernetes CA: %w", err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("kubernetes CA %s: no PEM certificate", path)
	}
	return p, nil
}

// Targets lists the node's pods and returns the targets their annotations ask for, in the API
// server's order, and one error per annotated pod whose annotations cannot be used (the pod is
// skipped, never guessed at; the error names the pod and the annotation).
func (d *Discoverer) Targets(ctx context.Context) ([]scrape.Target, []error, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.list, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if d.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+d.o.Token)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("listing the pods of node %s: %w", d.o.Node, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("listing the pods of node %s: %w", d.o.Node, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("listing the pods of node %s: %s: %.200s", d.o.Node, resp.Status, body)
	}
	if len(body) > maxListBytes {
		return nil, nil, fmt.Errorf("listing the pods of node %s: the list is over %d bytes", d.o.Node, maxListBytes)
	}
	var list podList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, nil, fmt.Errorf("listing the pods of node %s: %w", d.o.Node, err)
	}
	var out []scrape.Target
	var bad []error
	foreign, over := 0, 0
	for i := range list.Items {
		p := &list.Items[i]
		if p.Spec.NodeName != d.o.Node {
			// The field selector asked for this node's pods only: a list that holds others (a
			// proxy, an API server ignoring the selector) must not make this daemon scrape
			// the whole cluster (issue 27, item 18).
			foreign++
			continue
		}
		t, ok, err := d.target(p)
		switch {
		case err != nil:
			bad = append(bad, err)
		case ok && len(out) < d.o.MaxTargets:
			out = append(out, t)
		case ok:
			over++
		}
	}
	if foreign > 0 {
		bad = append(bad, fmt.Errorf("listing the pods of node %s: %d pods of other nodes in the list, skipped", d.o.Node, foreign))
	}
	if over > 0 {
		bad = append(bad, fmt.Errorf("node %s: %d annotated pods past the %d targets a node may have, not scraped", d.o.Node, over, d.o.MaxTargets))
	}
	return out, bad, nil
}
