// Package e2e runs specwatch end to end with real parts: a private journald (root, a mount
// namespace; internal/testkit/testjournal), `specwatch run` on it, Prometheus or VictoriaMetrics and
// vmalert with the shipped rules, Alertmanager and a webhook (TestAlertPath*), and a flood of
// fake units through the journal (TestCardinalityAttack, also run by scripts/soak.sh). It has
// no code of its own; the servers come from internal/testkit/testharness.
package e2e
