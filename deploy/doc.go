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
// vmalert, a real Prometheus and Alertmanager, dpkg — and skip, saying which package to
// install, when that tool is missing (scripts/deps.sh installs them all).
//
// e2e_helpers_test.go starts a real Prometheus and Alertmanager on loopback for tests
// (StartPrometheus, StartAlertmanager, StartWebhook); the end-to-end test of the daemon reuses
// them. TestDashboardQueriesReturnData runs every dashboard query against the Prometheus named
// by SPECWATCH_PROM_URL.
package deploy
