package exporter

// pageCSS styles the page and its inline SVGs. The SVGs carry classes, not colours, so one
// palette holds for the whole page:
//   - verdicts: healthy green, expected teal, degraded amber, anomalous red;
//   - severities: critical red, warning amber, info slate (anomaly spans use the same hues);
//   - data: measured in blue (a light-to-dark ramp for age, newer is darker and drawn on
//     top), the model in orange (fit line, predicted tok/s), after-idle artefacts in grey;
//   - attribution: acceptance violet, context blue, residual orange, batch grey, total black.
//
// System fonts only: the page must render offline, and fast.
const pageCSS = `
:root{--fg:#1d2430;--mute:#5c6675;--line:#dde2ea;--bg:#f3f5f8;--card:#fff;
--ok:#2b8a3e;--exp:#0b7285;--deg:#d9480f;--bad:#c92a2a;--unk:#868e96;
--crit:#c92a2a;--warn:#e67700;--info:#5f6b7a;--meas:#1c4e9a;--model:#e8590c;--idle:#8a94a3}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif}
a{color:var(--meas);text-decoration:none}a:hover{text-decoration:underline}
.num,.tv,.val,td.when,.span,.index td{font-variant-numeric:tabular-nums}
header.top{background:#1d2430;color:#fff;padding:18px 0 14px}
header.top>*{max-width:1240px;margin:0 auto;padding:0 20px}
header.top h1{font-size:22px;margin:0 auto 2px;font-weight:650;letter-spacing:.2px}
header.top .meta{color:#c3cad5;margin:0 auto;font-size:13px}
header.top .model{color:#8f9bb0;margin:4px auto 0;font-size:12.5px}
main{max-width:1240px;margin:0 auto;padding:8px 20px 20px}
h2{font-size:17px;margin:22px 0 8px}h3{font-size:14px;margin:16px 0 6px;color:var(--mute)}
.none{color:var(--ok);margin:6px 0 4px;font-weight:600}.more{color:var(--mute);font-size:12.5px;margin:4px 0}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:10px;margin:14px 0}
.tile{background:#f8f9fb;border:1px solid var(--line);border-radius:7px;padding:9px 12px;min-width:0}
.overview .tile{background:var(--card)}
.tl{font-size:11.5px;color:var(--mute);text-transform:uppercase;letter-spacing:.4px}
.tv{font-size:21px;font-weight:650;margin:1px 0}
.ts{font-size:12px;color:var(--mute)}
.tile.bad{border-color:#f1aeb5;background:#fff5f5}.tile.bad .tv{color:var(--bad)}
.figs{grid-template-columns:1fr 1fr 1.5fr 1.2fr}
@media (max-width:1000px){.figs{grid-template-columns:1fr 1fr}}
.fc table{border-collapse:collapse;width:100%;font-size:12.5px;margin-top:3px}
.fc td,.fc th{padding:1px 6px 1px 0;text-align:left}.fc th{color:var(--mute);font-weight:500}
th.num,td.num{text-align:right}
table.index,table.anomalies{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:7px;overflow:hidden;font-size:13px}
.index th{font-size:11.5px;color:var(--mute);text-transform:uppercase;letter-spacing:.4px;font-weight:500;text-align:left;padding:7px 10px;border-bottom:1px solid var(--line)}
.index td,.anomalies td{padding:6px 10px;border-top:1px solid #eef0f4;vertical-align:top}
.anomalies .kind{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;white-space:nowrap}
.anomalies .when{white-space:nowrap;color:var(--mute)}.anomalies a{white-space:nowrap}.anomalies .detail{color:#3b4452}
.card .anomalies td:nth-child(3){display:none}
.card .anomalies{margin:10px 0}
.badge,.sev{display:inline-block;border-radius:999px;padding:2px 9px;font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.5px;color:#fff;background:var(--unk);white-space:nowrap}
.v-healthy.badge{background:var(--ok)}.v-expected.badge{background:var(--exp)}
.v-degraded.badge{background:var(--deg)}.v-anomalous.badge{background:var(--bad)}
.sev.critical{background:var(--crit)}.sev.warning{background:var(--warn)}.sev.info{background:var(--info)}
.card{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--unk);border-radius:9px;padding:16px 20px 10px;margin:22px 0;box-shadow:0 1px 2px rgba(16,24,40,.05)}
.card.v-healthy{border-left-color:var(--ok)}.card.v-expected{border-left-color:var(--exp)}
.card.v-degraded{border-left-color:var(--deg)}.card.v-anomalous{border-left-color:var(--bad)}
.card-h{display:flex;align-items:baseline;gap:12px;flex-wrap:wrap}
.card-h h2{margin:0;font-size:18px;font-weight:650}
.eng{margin-right:4px}
.lab{font-weight:500;color:#3b4452;margin-left:8px}.lab i{font-style:normal;color:var(--mute);font-weight:400;font-size:13px}
.span{margin:0 0 0 auto;color:var(--mute);font-size:12.5px}
.explain{margin:10px 0 4px;padding:8px 12px;background:#f8f9fb;border-radius:6px;border-left:3px solid var(--line);max-width:1100px}
.v-anomalous .explain{background:#fff5f5;border-left-color:var(--bad)}
.v-degraded .explain{background:#fff4e6;border-left-color:var(--deg)}
.v-expected .explain{border-left-color:var(--exp)}
.row2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:20px}
@media (max-width:1000px){.row2{grid-template-columns:minmax(0,1fr)}}
figure.fig{margin:8px 0 14px;min-width:0}
figcaption{font-weight:650;font-size:14px;margin:0 0 4px}
svg.plot{display:block;max-width:100%;height:auto;overflow:visible}
.empty{border:1px dashed #c9ced6;border-radius:7px;color:var(--mute);padding:28px 16px;text-align:center;background:#fafbfc}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--mute);margin:2px 0 0 56px}
.legend span{white-space:nowrap;display:inline-flex;align-items:center;gap:6px}
.sw{display:inline-block;width:18px;height:0;border-top:2px solid}
.sw.ramp{height:8px;border:0;width:36px;border-radius:2px;background:linear-gradient(90deg,#c6dbef,#6baed6,#2171b5,#084594)}
.sw.idle{width:9px;height:9px;border:1.5px solid var(--idle);border-radius:50%}
.sw.fit{border-top:2.5px solid var(--model)}.sw.raw{width:5px;height:5px;border:0;border-radius:50%;background:#8fb8de}
.sw.mean{border-top:2.5px solid var(--meas)}.sw.pred{border-top:6px solid rgba(232,89,12,.32)}
.sw.off{width:0;border-top:0;border-left:4px solid transparent;border-right:4px solid transparent;border-bottom:7px solid var(--mute)}
.sw.sp-critical,.sw.sp-warning,.sw.sp-info{height:11px;width:16px;border:0;border-radius:2px}
.sw.sp-critical{background:rgba(250,82,82,.22)}.sw.sp-warning{background:rgba(250,176,5,.3)}.sw.sp-info{background:rgba(134,142,150,.25)}
table.attr{border-collapse:collapse;font-size:12.5px;margin:6px 0 0 96px}
.attr td,.attr th{padding:2px 14px 2px 0;white-space:nowrap}.attr th{color:var(--mute);font-weight:500}.attr td:first-child{color:var(--mute)}
footer{max-width:1240px;margin:0 auto;padding:4px 20px 30px;color:var(--mute);font-size:12px}
.plot text{font-size:11px;fill:var(--mute)}
.plot .yt{text-anchor:end}.plot .xt{text-anchor:middle}
.plot .atitle{font-size:11.5px;fill:#3b4452;font-weight:600}
.plot .start{text-anchor:start}.plot .end{text-anchor:end}
.plot .note{font-size:12px;fill:var(--bad)}
.plot .grid{stroke:#e9ecef;stroke-width:1;shape-rendering:crispEdges}
.plot .axis{stroke:#adb5bd;stroke-width:1;shape-rendering:crispEdges}
.plot .fit{stroke:var(--model);stroke-width:2;stroke-linecap:round;stroke-opacity:.95}
.plot .raw{fill:none;stroke:#8fb8de;stroke-width:2.6;stroke-linecap:round}
.plot .mean{fill:none;stroke:var(--meas);stroke-width:2.2;stroke-linejoin:round}
.plot .pred{fill:none;stroke:var(--model);stroke-width:6;stroke-opacity:.32;stroke-linejoin:round;stroke-linecap:round}
.plot .idle{fill:none;stroke:var(--idle);stroke-width:1.2}
.plot .off{fill:var(--mute)}
.plot .dot{fill:none;stroke-width:4.4;stroke-linecap:round}
.rc0{stroke:#c6dbef}.rc1{stroke:#9ecae1}.rc2{stroke:#6baed6}.rc3{stroke:#4292c6}.rc4{stroke:#2171b5}.rc5{stroke:#084594}
.span.critical rect{fill:rgba(250,82,82,.13)}.span.warning rect{fill:rgba(250,176,5,.2)}.span.info rect{fill:rgba(134,142,150,.16)}
.plot .splabel{font-size:10.5px;font-weight:650;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.span.critical .splabel{fill:var(--crit)}.span.warning .splabel{fill:#b35900}.span.info .splabel{fill:var(--info)}
.plot .rowl{text-anchor:end;font-size:12px;fill:var(--fg)}
.plot .val{text-anchor:end;font-size:12px;fill:var(--fg)}
.plot .zero{stroke:#495057;stroke-width:1.2;shape-rendering:crispEdges}
.plot .sep{stroke:#ced4da;stroke-dasharray:3 3}
.bar.acc rect{fill:#7048e8}.bar.ctx rect{fill:#1c7ed6}.bar.res rect{fill:#e8590c}.bar.bat rect{fill:#868e96}.bar.tot rect{fill:#343a40}
`
