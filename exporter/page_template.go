package exporter

import "html/template"

// pageTemplate lays the page out; every value arrives formatted (pageView), and html/template
// escapes all of it by context, so a label from a log can never become markup. The only
// template.HTML values are the SVGs, built by svgBuf, which escapes its own text.
var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{.RefreshMeta}}<meta name="generator" content="specwatch {{.Version}}">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header class="top">
<h1>{{.Title}}</h1>
<p class="meta">{{with .Generated}}generated {{.}} · {{end}}specwatch {{with .Version}}{{.}}{{else}}(unknown version){{end}}{{with .RefreshText}} · refreshes every {{.}}{{end}}</p>
<p class="model">tok/s = commit length × running requests ÷ step time, &nbsp; step time = a + b · context</p>
</header>
<main>
<section class="overview">
<div class="tiles input">{{range .Input}}<div class="tile {{.Class}}"><div class="tl">{{.Label}}</div><div class="tv">{{.Value}}</div><div class="ts">{{.Sub}}</div></div>{{end}}</div>
<h2>Active anomalies</h2>
{{if .Active}}{{template "anomalies" .Active}}{{else}}<p class="none">No active anomalies.</p>{{end}}
{{with .Past}}<h3>Earlier episodes</h3>{{template "anomalies" .}}{{end}}{{with .PastMore}}<p class="more">… and {{.}} earlier, listed with their series.</p>{{end}}
<h2>Series</h2>
{{if .Series}}<table class="index"><thead><tr><th>verdict</th><th>series</th><th>samples</th><th class="num">tok/s</th><th class="num">commit length</th><th class="num">anomalies</th></tr></thead><tbody>
{{range .Series}}<tr><td><span class="badge v-{{.Verdict}}">{{.VerdictText}}</span></td><td><a href="#{{.Anchor}}">{{.Name}}</a></td><td>{{.Span}}</td><td class="num">{{(index .Figures 0).Value}}</td><td class="num">{{(index .Figures 1).Value}}</td><td class="num">{{.AnomalyCount}}</td></tr>
{{end}}</tbody></table>{{else}}<p class="none">No engine statistics found: is this an SGLang, vLLM or llama.cpp log with metrics logging on?</p>{{end}}
</section>
{{range .Series}}
<section class="card v-{{.Verdict}}" id="{{.Anchor}}">
<header class="card-h"><span class="badge v-{{.Verdict}}">{{.VerdictText}}</span>
<h2><span class="eng">{{.Engine}}</span>{{range .Labels}} <span class="lab"><i>{{.K}}</i> {{.V}}</span>{{end}}</h2>
<p class="span">{{.Span}}</p></header>
{{with .Explanation}}<p class="explain">{{.}}</p>{{end}}
{{with .AnomaliesMore}}<p class="more">{{.}} earlier episodes not listed; the latest:</p>{{end}}{{with .Anomalies}}{{template "anomalies" .}}{{end}}
<div class="tiles figs">{{range .Figures}}<div class="tile"><div class="tl">{{.Label}}</div><div class="tv">{{.Value}}</div><div class="ts">{{.Sub}}</div></div>{{end}}
{{if .Forecast}}<div class="tile fc"><div class="tl">forecast, one request</div><table><thead><tr><th>context</th><th class="num">step</th><th class="num">tok/s</th></tr></thead><tbody>{{range .Forecast}}<tr><td>{{.Context}}</td><td class="num">{{.StepMS}} ms</td><td class="num">{{.TPS}}</td></tr>{{end}}</tbody></table></div>{{end}}
</div>
<div class="row2">
{{template "plot" .Scatter}}
<figure class="fig">{{template "plotbody" .Attr}}{{with .AttrRows}}<table class="attr"><thead><tr><th></th><th class="num">baseline</th><th class="num">latest</th><th class="num">change</th></tr></thead><tbody>{{range .}}<tr><td>{{.Name}}</td><td class="num">{{.Baseline}}</td><td class="num">{{.Current}}</td><td class="num">{{.Change}}</td></tr>{{end}}</tbody></table>{{end}}</figure>
</div>
{{template "plot" .Commit}}
{{template "plot" .TPS}}
</section>
{{end}}
</main>
<footer>specwatch explains speculative-decoding throughput from engine logs. Times are UTC. This page is self-contained: no scripts, no external resources.</footer>
</body>
</html>
{{define "anomalies"}}<table class="anomalies"><tbody>{{range .}}<tr class="sev-{{.Severity}}"><td><span class="sev {{.Severity}}">{{.Severity}}</span></td><td class="kind">{{.Kind}}</td><td><a href="#{{.Anchor}}">{{.Series}}</a></td><td class="when">{{.When}}</td><td class="detail">{{.Detail}}</td></tr>{{end}}</tbody></table>{{end}}
{{define "plot"}}<figure class="fig">{{template "plotbody" .}}</figure>{{end}}
{{define "plotbody"}}<figcaption>{{.Title}}</figcaption>{{if .SVG}}{{.SVG}}{{with .Legend}}<div class="legend">{{range .}}<span><i class="sw {{.Class}}"></i>{{.Text}}</span>{{end}}</div>{{end}}{{else}}<div class="empty">{{.Empty}}</div>{{end}}{{end}}
`
