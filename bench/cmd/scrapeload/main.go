// Command scrapeload measures what scraping costs the daemon: it serves 16 vLLM-shaped
// /metrics endpoints on loopback (speculative-decoding counters that grow, and the histograms
// vLLM serves: about 45 kB each), runs `specwatch run` on an empty journal directory once
// without and once with the 16 endpoints as --scrape targets (every 5 s, the default), and
// prints, per run, the CPU share of one core and VmRSS / VmHWM over the measured window.
//
//	go build -o /tmp/specwatch ./cmd/specwatch && go run ./bench/cmd/scrapeload -bin /tmp/specwatch
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/specwatch/specwatch/bench/internal/procstat"
)

func main() {
	bin := flag.String("bin", "specwatch", "the specwatch binary")
	targets := flag.Int("targets", 16, "endpoints to scrape")
	warm := flag.Duration("warm", 15*time.Second, "time before measuring")
	measure := flag.Duration("measure", 60*time.Second, "measured window")
	flag.Parse()
	var urls []string
	for i := range *targets {
		urls = append(urls, serve(i))
	}
	for _, withScrape := range []bool{false, true} {
		var args []string
		if withScrape {
			for _, u := range urls {
				args = append(args, "--scrape.url", u)
			}
		}
		cpu, rss, hwm, err := procstat.Daemon(*bin, args, *warm, *measure)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("scrape targets %2d: CPU %.3f %% of a core, VmRSS %.1f MB, VmHWM %.1f MB\n",
			len(args)/2, cpu, rss/1024, hwm/1024)
	}
}

// serve starts one engine endpoint on loopback and returns its URL.
func serve(engine int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	var n atomic.Int64
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Write([]byte(body(engine, float64(n.Add(1)))))
	}))
	return "http://" + ln.Addr().String() + "/metrics"
}

func body(engine int, k float64) string {
	var b strings.Builder
	l := fmt.Sprintf(`engine="%d",model_name="meta-llama/Llama-3.1-8B-Instruct"`, engine)
	for _, c := range []struct {
		name string
		v    float64
	}{{"vllm:spec_decode_num_drafts", 1000 * k}, {"vllm:spec_decode_num_draft_tokens", 3000 * k},
		{"vllm:spec_decode_num_accepted_tokens", 1700 * k}, {"vllm:generation_tokens", 9000 * k}} {
		fmt.Fprintf(&b, "# HELP %s_total x\n# TYPE %s_total counter\n%s_total{%s} %.1f\n", c.name, c.name, c.name, l, c.v)
		fmt.Fprintf(&b, "# HELP %s_created x\n# TYPE %s_created gauge\n%s_created{%s} 1.7e+09\n", c.name, c.name, c.name, l)
	}
	p := "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(&b, "# HELP %s_total x\n# TYPE %s_total counter\n", p, p)
	for i, f := range []float64{800, 550, 350} {
		fmt.Fprintf(&b, "%s_total{%s,position=\"%d\"} %.1f\n", p, l, i, f*k)
	}
	fmt.Fprintf(&b, "# HELP vllm:num_requests_running x\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{%s} 8.0\n", l)
	for h := range 14 {
		name := fmt.Sprintf("vllm:histogram_%d_seconds", h)
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s histogram\n", name, name)
		for i := range 20 {
			fmt.Fprintf(&b, "%s_bucket{%s,le=\"%g\"} %d.0\n", name, l, 0.001*float64(int(1)<<i), 100*i)
		}
		fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} 2000.0\n%s_count{%s} 2000.0\n%s_sum{%s} 123.4\n", name, l, name, l, name, l)
	}
	return b.String()
}
