// Package cmdhelp is the help specwatch's command line gives beyond kingpin's, generated from
// the same definitions (kingpin's application model): suggestions for a mistyped flag or command,
// enum flags whose errors name the flag, the man page's sections and the fish completion script.
package cmdhelp
