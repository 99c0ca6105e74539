#!/usr/bin/env python3
"""Agreement check of bench/run.sh: specwatch `analyze --format json` vs mtail's Prometheus output.

usage: compare.py SPECWATCH.json MTAIL.prom [--ignore-host]

Per series (engine, host, rank) it compares the number of samples and the last commit length.
Definitions: specwatch counts every engine line as one sample of its series (SGLang: decode,
prefill and avg_commit_len lines; vLLM: the engine line AND its SpecDecoding line; llama.cpp:
the draft acceptance line). vLLM SpecDecoding lines carry no engine name, only the APIServer
pid: mtail counts them by pid, and the pid is mapped to its engine through the engine lines
(specwatch_vllm_kv_usage_percent{rank,pid}). specwatch reports no commit length for llama.cpp
(its line gives an acceptance rate, not tokens per verify step), so only samples are compared.
Exit status 1 if any figure disagrees beyond rounding (0.005).
"""
import json, re, sys

def prom(path):
    out = []
    pat = re.compile(r'^(\w+)\{(.*)\}\s+(\S+)')
    for line in open(path):
        m = pat.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        out.append((m.group(1), labels, float(m.group(3))))
    return out

def main():
    sw_path, mt_path = sys.argv[1], sys.argv[2]
    ignore_host = '--ignore-host' in sys.argv
    key = lambda eng, host, rank: (eng, '' if ignore_host else host, rank)
    sw = {}
    for s in json.load(open(sw_path))['series']:
        l = s['labels']
        sw[key(l['engine'], l.get('host', ''), l.get('rank', ''))] = (s['samples'], s.get('commit_len', {}).get('last'))
    mt_samples, mt_last, pid_rank, spec_n, spec_last = {}, {}, {}, {}, {}
    for name, l, v in prom(mt_path):
        h = l.get('host', '')
        if name == 'specwatch_samples_total':
            mt_samples[key(l['engine'], h, l['rank'])] = v
        elif name == 'specwatch_commit_len':
            mt_last[key(l['engine'], h, l['rank'])] = v
        elif name == 'specwatch_vllm_kv_usage_percent':
            pid_rank[(h, l['pid'])] = l['rank']
        elif name == 'specwatch_vllm_spec_samples_total':
            spec_n[(h, l['pid'])] = v
        elif name == 'specwatch_vllm_mean_acceptance_length':
            spec_last[(h, l['pid'])] = v
    for (h, pid), n in spec_n.items():
        k = key('vllm', h, pid_rank.get((h, pid), 'pid ' + pid))
        mt_samples[k] = mt_samples.get(k, 0) + n
        if (h, pid) in spec_last:
            mt_last[k] = spec_last[(h, pid)]
    ok = True
    print('| series (engine host rank) | specwatch samples | mtail samples | specwatch commit_len.last | mtail last | agree |')
    print('| --- | ---: | ---: | ---: | ---: | --- |')
    for k in sorted(set(sw) | set(mt_samples)):
        s_n, s_last = sw.get(k, (None, None))
        m_n, m_last = mt_samples.get(k), mt_last.get(k)
        if k[0] == 'llamacpp':
            m_last = None  # see the docstring
        good = s_n is not None and m_n is not None and int(m_n) == s_n and \
            ((s_last is None and m_last is None) or (s_last is not None and m_last is not None and abs(s_last - m_last) <= 0.005))
        ok &= good
        fmt = lambda x: '—' if x is None else ('%g' % x)
        print('| %s | %s | %s | %s | %s | %s |' % (' '.join(x or '·' for x in k), fmt(s_n), fmt(m_n), fmt(s_last), fmt(m_last), 'yes' if good else '**NO**'))
    print('\nagreement: %s' % ('OK' if ok else 'FAILED'))
    sys.exit(0 if ok else 1)

main()
