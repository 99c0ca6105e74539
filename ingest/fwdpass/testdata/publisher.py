#!/usr/bin/python3
"""A forward-pass metrics publisher as vLLM and SGLang run one, for ingest/fwdpass's tests.

One ZeroMQ PUB socket per data-parallel rank, bound where the engines bind it (tcp: the base
port + rank, as vLLM's --forward-pass-metrics-port; ipc: PATH.rank, as SGLang's
--forward-pass-metrics-ipc-name), and one publisher thread per socket that does what the
engines' do (vLLM vllm/v1/metrics/forward_pass_metrics.py ZmqForwardPassMetricsPublisher._run,
SGLang python/sglang/srt/observability/forward_pass_metrics.py _FpmPublisherThread._run): take
the next ForwardPassMetrics from a queue, or after a second without one publish the idle
heartbeat, number it from 0 (counter_id), and send the three frames (b"", the number as 8
big-endian bytes, the msgpack payload) with NOBLOCK.

The payload is what msgspec's msgpack encoder writes for the engines' msgspec Structs: a map of
field name to value in declaration order, the nested Structs maps likewise, ints in their
smallest msgpack form and floats as float64. Debian has no msgspec; msgpack.packb of dicts in
that order writes the same bytes.

Driven on standard input, one command a line, so that a test decides when iterations start
(after its subscriptions are live, which a PUB socket does not wait for):
    burst N    publish N iterations on every rank at --rate per rank per second
    quit       exit
It prints "ready" once every socket is bound and "done N" when a burst is published.
"""

import argparse
import queue
import sys
import threading
import time
import uuid

import msgpack
import zmq

HEARTBEAT_INTERVAL_SECONDS = 1.0


def scheduled(num_prefill=0, prefill_tokens=0, prefill_var=0.0, prefill_kv=0, num_decode=0, decode_kv=0, decode_var=0.0):
    return {
        "num_prefill_requests": num_prefill,
        "sum_prefill_tokens": prefill_tokens,
        "var_prefill_length": prefill_var,
        "sum_prefill_kv_tokens": prefill_kv,
        "num_decode_requests": num_decode,
        "sum_decode_kv_tokens": decode_kv,
        "var_decode_kv_tokens": decode_var,
    }


def queued(num_prefill=0, prefill_tokens=0, num_decode=0, decode_kv=0):
    return {
        "num_prefill_requests": num_prefill,
        "sum_prefill_tokens": prefill_tokens,
        "var_prefill_length": 0.0,
        "num_decode_requests": num_decode,
        "sum_decode_kv_tokens": decode_kv,
        "var_decode_kv_tokens": 0.0,
    }


def metrics(engine, worker_id, dp_rank, wall_time=0.0, sched=None, queue_=None):
    """ForwardPassMetrics in field order; counter_id is set when it is sent."""
    m = {"version": 1, "worker_id": worker_id, "dp_rank": dp_rank, "counter_id": 0}
    if engine == "vllm":
        m["timing_scope"] = "execute_model_cuda"
    m["wall_time"] = wall_time
    m["scheduled_requests"] = sched or scheduled()
    m["queued_requests"] = queue_ or queued()
    return m


def iteration(engine, worker_id, dp_rank, i, mixed_every):
    """The i-th iteration of a decode batch whose requests grow one token a step; every
    mixed_every-th one also prefills a chunk."""
    running = 8 + (i % 24)
    kv = running * (512 + i)
    step = 0.012 + 2.0e-7 * kv  # seconds: a + b * KV tokens
    if mixed_every and i % mixed_every == mixed_every - 1:
        sched = scheduled(num_prefill=1, prefill_tokens=2048, prefill_kv=256, num_decode=running, decode_kv=kv, decode_var=1024.0)
        step += 0.030
    else:
        sched = scheduled(num_decode=running, decode_kv=kv, decode_var=1024.0)
    return metrics(engine, worker_id, dp_rank, step, sched, queued(num_prefill=i % 3, prefill_tokens=700 * (i % 3)))


class Rank:
    """One DP rank's socket and publisher thread, as the engines have them."""

    def __init__(self, ctx, endpoint, engine, worker_id, dp_rank, heartbeat):
        self.engine, self.worker_id, self.dp_rank, self.heartbeat = engine, worker_id, dp_rank, heartbeat
        self.queue = queue.Queue(maxsize=10_000)
        self.seq = 0
        self.pub = ctx.socket(zmq.PUB)
        self.pub.bind(endpoint)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        last_publish = time.monotonic()
        while True:
            try:
                m = self.queue.get(timeout=self.heartbeat)
            except queue.Empty:
                if time.monotonic() - last_publish < self.heartbeat:
                    continue
                m = metrics(self.engine, self.worker_id, self.dp_rank)
            seq = self.seq
            self.seq += 1
            m["counter_id"] = seq
            try:
                self.pub.send_multipart((b"", seq.to_bytes(8, "big"), msgpack.packb(m, use_bin_type=True)), flags=zmq.NOBLOCK)
                last_publish = time.monotonic()
            except zmq.Again:
                pass


def burst(ranks, n, rate, mixed_every, first):
    """n iterations on every rank, each rank paced at rate per second."""
    period = 1.0 / rate
    start = time.monotonic()
    for i in range(n):
        delay = start + i * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        for r in ranks:
            r.queue.put(iteration(r.engine, r.worker_id, r.dp_rank, first + i, mixed_every))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=("vllm", "sglang"), default="vllm")
    ap.add_argument("--endpoint", required=True, help="tcp://HOST:PORT (rank r at PORT+r) or ipc://PATH (rank r at PATH.r)")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--rate", type=float, default=200.0, help="iterations per second per rank")
    ap.add_argument("--mixed-every", type=int, default=0, help="every Nth iteration also prefills")
    ap.add_argument("--worker-id", default="", help="default: a new one at every start, as vLLM's instance_id")
    ap.add_argument("--heartbeat", type=float, default=HEARTBEAT_INTERVAL_SECONDS)
    a = ap.parse_args()
    worker_id = a.worker_id or uuid.uuid4().hex[:5]
    ctx = zmq.Context()
    ranks = []
    for r in range(a.ranks):
        if a.endpoint.startswith("tcp://"):
            host, port = a.endpoint[len("tcp://"):].rsplit(":", 1)
            endpoint = "tcp://%s:%d" % (host, int(port) + r)
        else:
            endpoint = "%s.%d" % (a.endpoint, r)
        ranks.append(Rank(ctx, endpoint, a.engine, worker_id, r, a.heartbeat))
    print("ready", flush=True)
    sent = 0
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "quit":
            break
        if cmd[0] == "burst":
            n = int(cmd[1])
            burst(ranks, n, a.rate, a.mixed_every, sent)
            sent += n
            while any(not r.queue.empty() for r in ranks):
                time.sleep(0.005)
            print("done %d" % n, flush=True)


if __name__ == "__main__":
    main()
