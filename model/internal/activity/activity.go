// Package activity remembers when each source (host, unit, container) last logged, which stale
// detection and expiry compare a series' silence with.
package activity

// Units is the latest entry of each source: its stamp, and when it arrived. The zero value is
// ready; Max bounds how many sources it holds (the ones past it are not remembered).
type Units struct {
	Max int
	m   map[string]seen
	key []byte
}

// seen is a source's latest entry: its stamp, and when it arrived (0: not heard live).
type seen struct{ stamp, arrival int64 }

// Seen records an entry of host/unit/container stamped stamp or arrived at arrival (Unix ns;
// either may be 0). It allocates only the first time a source is seen.
func (u *Units) Seen(host, unit, container []byte, stamp, arrival int64) {
	if u.m == nil {
		u.m = make(map[string]seen)
	}
	u.key = append(append(append(append(append(u.key[:0], host...), 0), unit...), 0), container...)
	if v, ok := u.m[string(u.key)]; ok { // lookups by string(bytes) do not allocate
		if stamp > v.stamp || arrival > v.arrival {
			u.m[string(u.key)] = seen{max(v.stamp, stamp), max(v.arrival, arrival)}
		}
		return
	}
	if len(u.m) < u.Max {
		u.m[string(u.key)] = seen{stamp, arrival}
	}
}

// Last is when host/unit/container last logged: its latest arrival where one was recorded
// (once a source has one, its stamps no longer count), else its latest stamp; 0: never seen.
func (u *Units) Last(host, unit, container string) int64 {
	v := u.m[host+"\x00"+unit+"\x00"+container]
	if v.arrival != 0 {
		return v.arrival
	}
	return v.stamp
}

// Len is how many sources are remembered.
func (u *Units) Len() int { return len(u.m) }
