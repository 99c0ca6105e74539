package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"
	sddaemon "github.com/coreos/go-systemd/v22/daemon"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/internal/buildinfo"
)

// defineRun declares run's flags; the action is the daemon: follow the journal exactly once,
// forever.
func defineRun(c *kingpin.CmdClause, _ io.Writer) action {
	f := &config.Overrides{Given: map[string]bool{}}
	addFlags(c, f.Flags(), f.Given)
	return func(ctx context.Context, _, stderr io.Writer) error { return runDaemon(ctx, f, stderr) }
}

func runDaemon(ctx context.Context, f *config.Overrides, stderr io.Writer) error {
	// SIGHUP is queued from here on (internal/hupguard ignored it until now): one that arrives
	// while the config is read is applied by the reload loop, not lost.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := f.Load()
	if err != nil {
		return err
	}
	daemon.TuneRuntime()
	log, level, err := daemon.NewLogger(cfg.Log.Level, cfg.Log.Format, stderr)
	if err != nil {
		return err
	}
	v, rev := buildinfo.Version()
	d, err := daemon.New(daemon.Options{Config: cfg, Log: log, Live: true, Follow: true, Title: "specwatch", Version: v, Revision: rev})
	if err != nil {
		return err
	}
	defer d.Close()
	go d.ReloadOn(ctx, hup, f.Load, level)
	log.Info().Strs("units", cfg.Journal.Units).Strs("identifiers", cfg.Journal.Identifiers).Strs("containers", cfg.Journal.Containers).
		Str("journal_dir", cfg.Journal.Dir).Bool("resume", d.Resumes()).Msg("specwatch starting" + exitOnSignalHint())
	// Ready for systemd (Type=notify): listening, and SIGHUP handled, so a reload systemd holds
	// back until now (ExecReload) cannot hit the process before it can take one. No-op when
	// NOTIFY_SOCKET is unset.
	if _, err := sddaemon.SdNotify(false, sddaemon.SdNotifyReady); err != nil {
		log.Warn().Err(err).Msg("cannot tell systemd the daemon is ready")
	}
	defer sddaemon.SdNotify(false, sddaemon.SdNotifyStopping)
	return d.Run(ctx)
}

// exitOnSignalHint tells a user at a terminal how to stop; under systemd it says nothing.
func exitOnSignalHint() string {
	if os.Getenv("INVOCATION_ID") != "" {
		return ""
	}
	return " (Ctrl-C to stop)"
}
