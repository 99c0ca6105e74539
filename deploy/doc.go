// Package deploy holds specwatch's deployment artefacts and their tests; it has no code of its
// own. What is here:
//
//   - specwatch.service: the hardened systemd unit (DynamicUser, no capabilities, system-call
//     allow list; `systemd-analyze security` exposure 1.1).
//   - specwatch.yaml: the example configuration, every key with its default and a comment.
//   - prometheus/: alerting and recording rules for Prometheus and vmalert, with promtool unit
//     tests in prometheus/tests/.
//   - grafana/: the fleet and per-series dashboards.
//   - nfpm.yaml, debian/, nfpm/: the Debian package (scripts/package.sh builds it).
//
// The tests check each artefact with the tool that consumes it — systemd-analyze, promtool,
// vmalert, dpkg — and skip, saying which package to install, when that tool is missing
// (scripts/deps.sh installs them all). TestDashboardQueriesReturnData runs every dashboard
// query against the Prometheus named by SPECWATCH_PROM_URL.
//
// The tests that run the daemon itself are under test/: end to end with Prometheus,
// VictoriaMetrics and Alertmanager (test/e2e), the soak (test/soak), and the unit's sandbox
// and system-call filter (test/privilege). What they share with these tests is
// internal/testkit/testharness.
package deploy
