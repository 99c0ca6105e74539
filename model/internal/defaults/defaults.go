// Package defaults fills unset configuration: a zero or negative setting means "the default",
// so that a config file names only what it changes.
package defaults

// Set replaces *v with d when *v ≤ 0.
func Set[T ~int | ~int64 | ~float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
