// Package nofit keeps the account of decode lines that did not reach a series' step model,
// so that a series without one says exactly why instead of "0 of 20" beside hundreds of
// decode lines.
package nofit

// Account counts decode lines kept out of the fit, by reason. The zero value is ready.
type Account struct {
	AfterIdle, NoContext, BadStep int64
	// Shared counts requests that ran beside others (llama.cpp): their step is shared.
	Shared int64
	// Untrusted counts after-idle verdicts given only because no logging rhythm was known.
	Untrusted int64
}

// Count records why a decode point will not reach the fit, if it will not: it came after an
// idle gap, named no context, gave no positive step, or shared its steps with other requests.
func (a *Account) Count(idle, hasCtx bool, step float64, shared bool) {
	switch {
	case idle:
		a.AfterIdle++
	case !hasCtx:
		a.NoContext++
	case !(step > 0):
		a.BadStep++
	case shared:
		a.Shared++
	}
}
