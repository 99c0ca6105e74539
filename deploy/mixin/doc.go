// Command mixin renders specwatch's alerting rules, recording rules and Grafana dashboards
// from one config (config.yaml, the mixin's _config) and the sources beside it, and lints the
// dashboards with dashboard-linter's rules (lint.go; the linter itself is not served by the
// module proxy). It is a module of its own so that the daemon does not depend on Prometheus'
// PromQL parser, which it needs to place matchers in every selector of a dashboard query.
//
// Run `go -C deploy/mixin run .` from the repository root to re-render deploy/prometheus/*.yml
// and deploy/grafana/*.json; `-check` renders, lints and fails on a shipped file that differs
// (deploy's TestMixinRendered runs it). docs/mixin.md is the operator's guide.
package main
