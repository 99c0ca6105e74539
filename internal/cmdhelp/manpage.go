package cmdhelp

import (
	"fmt"
	"strings"
	"text/template"
)

// ManPage is specwatch's man page template (kingpin.ManPageTemplate): kingpin's command and
// flag sections, generated from the definitions as --help is, inside the sections a man page is
// expected to have (lintian and man's whatis read NAME); exit is the EXIT STATUS table, code and
// meaning. Its template functions are Funcs.
func ManPage(exit [][2]string) string {
	return manPageDefs + manPageHead + manPageTail + exitStatusRoff(exit) + manPageExamples
}

// Funcs are the template functions of ManPage (kingpin.Application.UsageFuncs).
var Funcs = template.FuncMap{"Roff": roff}

// roff makes a help text safe in a man page: a backslash printed as one, a character outside
// ASCII as its groff escape (troff reads bytes, and warns on UTF-8), a line starting with a
// dot or quote not taken for a request.
func roff(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r > 127:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		case (r == '.' || r == '\'') && (i == 0 || s[i-1] == '\n'):
			b.WriteString(`\&`)
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// manPageDefs are kingpin's (ManPageTemplate) with the help texts escaped.
const manPageDefs = `{{define "FormatFlags" -}}
{{range .Flags -}}
{{if not .Hidden -}}
.TP
\fB{{if .Short}}-{{.Short|Char}}, {{end}}--{{.Name}}{{if not .IsBoolFlag}}={{.FormatPlaceHolder|Roff}}{{end -}}\fR
{{.Help|Roff}}
{{end -}}
{{end -}}
{{end -}}

{{define "FormatCommand" -}}
{{if .FlagSummary}} {{.FlagSummary|Roff}}{{end -}}
{{range .Args}}{{if not .Hidden}} {{if not .Required}}[{{end}}{{if .PlaceHolder}}{{.PlaceHolder}}{{else}}<{{.Name}}>{{end}}{{if .Value|IsCumulative}}...{{end}}{{if not .Required}}]{{end}}{{end}}{{end -}}
{{end -}}

{{define "FormatCommands" -}}
{{range .FlattenedCommands -}}
{{if not .Hidden -}}
.SS
\fB{{.FullCommand}}{{template "FormatCommand" . -}}\fR
.PP
{{.Help|Roff}}
{{template "FormatFlags" . -}}
{{end -}}
{{end -}}
{{end -}}

{{define "FormatUsage" -}}
{{template "FormatCommand" .}}{{if .Commands}} <command> [<args> ...]{{end -}}\fR
{{end -}}

`

const manPageHead = `.TH specwatch 1 "" "{{.App.Version}}" "User Commands"
.SH "NAME"
{{.App.Name}} \- speculative-decoding throughput watcher for LLM inference hosts
.SH "SYNOPSIS"
.TP
\fB{{.App.Name}}{{template "FormatUsage" .App}}
.SH "DESCRIPTION"
{{.App.Help|Roff}}
.PP
\fBspecwatch analyze\fR diagnoses logs offline; \fBspecwatch run\fR is the daemon that follows
the journal, files and the engines' /metrics and serves /metrics, the JSON report and a status
page. \fBspecwatch help\fR \fICOMMAND\fR, or \fICOMMAND\fR \fB\-\-help\fR, lists a command's flags
with their defaults.
.SH "OPTIONS"
{{template "FormatFlags" .App -}}
{{if .App.Commands -}}
.SH "COMMANDS"
{{template "FormatCommands" .App -}}
{{end -}}
`

const manPageTail = `.SH "FILES"
.TP
.I /etc/specwatch/specwatch.yaml
The configuration file the Debian package installs and its unit passes to \fBrun\fR
(\fB\-\-config.file\fR). It writes every key with its default; check a change with
\fBspecwatch check\-config\fR before \fBsystemctl reload specwatch\fR.
.TP
.I /var/lib/specwatch
The state directory (\fB\-\-state.directory\fR, config key \fBstate_dir\fR): the saved journal
cursor (\fIjournal.cursor\fR), the followed files' positions, and the \fIlock\fR that keeps a
second daemon off the directory.
.TP
.I /lib/systemd/system/specwatch.service
The systemd unit (Type=notify): \fBExecReload\fR checks the configuration, then sends SIGHUP.
.TP
.I /etc/default/specwatch
\fBSPECWATCH_ARGS\fR: more flags for \fBrun\fR, read by the unit.
.SH "SIGNALS"
.TP
.B SIGTERM, SIGINT
\fBrun\fR and \fBdemo\fR stop gracefully: the HTTP server shuts down, a last push is sent, the
cursor is saved; \fBrun\fR then exits 0. Every other command stops reading and exits 130
(SIGINT) or 143 (SIGTERM) within a second, even when blocked on its input. A command that has
not stopped after its grace (20 s for \fBrun\fR and \fBdemo\fR) exits 128+N.
.TP
.B SIGHUP
\fBrun\fR re-reads the configuration file and its original flags. A bad file is refused, the
log names the key, and the running configuration is kept
(\fBspecwatch_config_last_reload_successful\fR turns 0); keys that apply only at a restart are
named in the log.
.TP
.B SIGKILL
Nothing is lost or counted twice: the next \fBrun\fR resumes right after the last saved cursor,
saved at most a second before.
`

// exitStatusRoff is the EXIT STATUS section, from the table run uses.
func exitStatusRoff(exit [][2]string) string {
	var b strings.Builder
	b.WriteString(".SH \"EXIT STATUS\"\n")
	for _, s := range exit {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", s[0], strings.ReplaceAll(s[1], "-", `\-`))
	}
	return b.String()
}

const manPageExamples = `.SH "EXAMPLES"
Diagnose the last two hours of an engine's unit:
.PP
.RS
.nf
journalctl \-u sglang.service \-o export \-\-since \-2h | specwatch analyze
.fi
.RE
.PP
A JSON report of a compressed log; exit status 3 if it holds no engine line:
.PP
.RS
.nf
specwatch analyze \-\-format json /var/log/vllm.log.gz > report.json
.fi
.RE
.PP
Follow two units as a daemon, serving /metrics and the status page on :9877:
.PP
.RS
.nf
specwatch run \-\-journal.unit sglang.service \-\-journal.unit vllm.service
.fi
.RE
.PP
Check an edited configuration, then apply it:
.PP
.RS
.nf
specwatch check\-config /etc/specwatch/specwatch.yaml && systemctl reload specwatch
.fi
.RE
.PP
Install the completion for fish (bash and zsh: \fB\-\-completion\-script\-bash\fR,
\fB\-\-completion\-script\-zsh\fR):
.PP
.RS
.nf
specwatch \-\-completion\-script\-fish > ~/.config/fish/completions/specwatch.fish
.fi
.RE
.SH "SEE ALSO"
.BR journalctl (1),
.BR systemd.service (5),
.BR prometheus (1);
the documentation in \fI/usr/share/doc/specwatch/\fR: \fIcli.md\fR (commands, exit status),
\fIconfiguration.md\fR, \fImetrics.md\fR, \fIreport.md\fR, \fIrunbook.md\fR.
`
