module github.com/specwatch/specwatch

go 1.26.0

require (
	github.com/VictoriaMetrics/metrics v1.45.0 // indirect
	github.com/coreos/go-systemd/v22 v22.7.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/common v0.74.0 // indirect
	github.com/prometheus/exporter-toolkit v0.20.0 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
