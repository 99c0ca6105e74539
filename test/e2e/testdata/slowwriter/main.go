// slowwriter prints N SGLang decode lines at R lines per second, each with a distinct #token,
// as an engine in a container would: the podman test runs it under conmon's k8s-file driver.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	rate, _ := strconv.Atoi(os.Args[2])
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := 1; i <= n; i++ {
		<-tick.C
		fmt.Printf("[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 4, #token: %d, token usage: 0.10, accept len: 3.10, accept rate: 0.52, cuda graph: True, gen throughput (token/s): 420.00, #queue-req: 0\n", 1000+i)
	}
}
