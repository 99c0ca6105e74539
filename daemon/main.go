package daemon

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	sddaemon "github.com/coreos/go-systemd/v22/daemon"

	"github.com/specwatch/specwatch/config"
)

// ProcessOptions are `specwatch run`'s process: how its config is read (the file, then the
// flags; again at every SIGHUP), where it logs, and its build.
type ProcessOptions struct {
	Load              func() (config.Config, error)
	Stderr            io.Writer
	Version, Revision string
}

// RunProcess is the daemon as a process, until ctx ends: the runtime tuned, the logger, the
// daemon, reloads on SIGHUP, and systemd told when it is ready and stopping (Type=notify).
func RunProcess(ctx context.Context, o ProcessOptions) error {
	// SIGHUP is queued from here on (internal/hupguard ignored it until now): one that arrives
	// while the config is read is applied by the reload loop, not lost.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := o.Load()
	if err != nil {
		return err
	}
	TuneRuntime()
	log, level, err := NewLogger(cfg.Log.Level, cfg.Log.Format, o.Stderr)
	if err != nil {
		return err
	}
	d, err := New(Options{Config: cfg, Log: log, Live: true, Follow: true, Title: "specwatch", Version: o.Version, Revision: o.Revision})
	if err != nil {
		return err
	}
	defer d.Close()
	go d.ReloadOn(ctx, hup, o.Load, level)
	log.Info().Strs("units", cfg.Journal.Units).Strs("identifiers", cfg.Journal.Identifiers).Strs("containers", cfg.Journal.Containers).
		Str("journal_dir", cfg.Journal.Dir).Bool("resume", d.Resumes()).Msg("specwatch starting" + StopHint())
	// Ready for systemd (Type=notify): listening, and SIGHUP handled, so a reload systemd holds
	// back until now (ExecReload) cannot hit the process before it can take one. No-op when
	// NOTIFY_SOCKET is unset.
	if _, err := sddaemon.SdNotify(false, sddaemon.SdNotifyReady); err != nil {
		log.Warn().Err(err).Msg("cannot tell systemd the daemon is ready")
	}
	defer sddaemon.SdNotify(false, sddaemon.SdNotifyStopping)
	return d.Run(ctx)
}

// StopHint tells a user at a terminal how to stop; under systemd it says nothing.
func StopHint() string {
	if os.Getenv("INVOCATION_ID") != "" {
		return ""
	}
	return " (Ctrl-C to stop)"
}
