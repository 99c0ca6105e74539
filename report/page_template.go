package report

import (
	_ "embed"
	"html/template"
)

// pageTemplate lays the page out; every value arrives formatted (pageView), and html/template
// escapes all of it by context, so a label from a log can never become markup. The only
// template.HTML values are the SVGs, built by report/svgplot, which escapes its own text.
var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

//go:embed page.html.tmpl
var pageHTML string

// pageCSS styles the page and its inline SVGs. The SVGs carry classes, not colours, so one
// palette holds for the whole page:
//   - verdicts: healthy green, expected teal, degraded amber, anomalous red;
//   - severities: critical red, warning amber, info slate (anomaly spans use the same hues);
//   - data: measured in blue (a light-to-dark ramp for age, newer is darker and drawn on
//     top), the model in orange (fit line, predicted tok/s), after-idle artefacts in grey;
//   - attribution: acceptance violet, context blue, residual orange, batch grey, total black.
//
// System fonts only: the page must render offline, and fast.
//
//go:embed page.css
var pageCSS string
