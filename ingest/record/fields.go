// Package record decodes the journal's record formats: a line of `journalctl -o json`
// (DecodeJSON) and the fields of an export record (Fields.Export). Both are pure functions on
// byte slices into a reusable Fields value; reading the stream (lines, export's binary fields,
// limits) is package ingest's Reader.
package record

// Bits of Fields.Has: which fields a record held.
const (
	HasMsg = 1 << iota
	HasCursor
	HasTime
	HasUnit
	HasHost
	HasIdent
	HasContainerName
	HasContainerID
)

// Fields collects what an ingest.Entry needs from one JSON or export record; the slices point
// into the line or into a Scratch.
type Fields struct {
	Has                            int  // HasMsg, …: the fields seen
	Null                           bool // JSON only: MESSAGE was null (journalctl left it out)
	Time                           int64
	Msg, Host, Unit, Ident, Cursor []byte
	// ContainerName and ContainerID are CONTAINER_NAME and CONTAINER_ID, which Docker's
	// and Podman's journald drivers add; Container chooses between them.
	ContainerName, ContainerID []byte
}

// Container is the record's container: its name, or its short id when it has no name.
func (f *Fields) Container() []byte { return Container(f.ContainerName, f.ContainerID) }

// shortID is how many characters of a container id Docker and Podman show (and write as
// CONTAINER_ID; CONTAINER_ID_FULL has the rest).
const shortID = 12

// Container names the container of a journal entry from its CONTAINER_NAME and CONTAINER_ID
// (either may be empty): the name when there is one, as it is what operators know and it
// survives the container's re-creation; else the id cut to Docker's short form, so that a
// writer that logs the full id still names the container as `docker ps` does. Every journal
// backend calls it, so they agree.
func Container(name, id []byte) []byte {
	if len(name) > 0 {
		return name
	}
	if len(id) > shortID {
		return id[:shortID:shortID]
	}
	return id
}

// IsEntry tells a journal entry from other data that happens to parse: it has at least one of
// the fields journalctl always prints.
func (f *Fields) IsEntry() bool { return f.Has&(HasMsg|HasCursor|HasTime) != 0 }

// Scratch is reused storage for field values that cannot point into the input (decoded JSON
// escapes, export values the stream may move). The zero value is ready; a Scratch serves one
// decoder at a time, and values decoded into it stay valid until the next record.
type Scratch struct {
	msg, host, unit, ident, cursor, key, num []byte
	cname, cid                               []byte
}

// Export keeps val if key is a field an Entry needs and f has none yet (the first of a
// repeated field wins). val is copied into s: reading the next export field may move it.
func (f *Fields) Export(key, val []byte, s *Scratch) {
	var bit int
	var dst *[]byte
	switch string(key) {
	case "MESSAGE":
		bit, dst = HasMsg, &s.msg
	case "_HOSTNAME":
		bit, dst = HasHost, &s.host
	case "_SYSTEMD_UNIT":
		bit, dst = HasUnit, &s.unit
	case "SYSLOG_IDENTIFIER":
		bit, dst = HasIdent, &s.ident
	case "CONTAINER_NAME":
		bit, dst = HasContainerName, &s.cname
	case "CONTAINER_ID":
		bit, dst = HasContainerID, &s.cid
	case "__CURSOR":
		bit, dst = HasCursor, &s.cursor
	case "__REALTIME_TIMESTAMP":
		if f.Has&HasTime == 0 {
			if t, ok := ParseMicros(val); ok {
				f.Time = t
				f.Has |= HasTime
			}
		}
		return
	default:
		return
	}
	if f.Has&bit != 0 {
		return
	}
	*dst = append((*dst)[:0], val...)
	f.Has |= bit
	switch bit {
	case HasMsg:
		f.Msg = *dst
	case HasHost:
		f.Host = *dst
	case HasUnit:
		f.Unit = *dst
	case HasIdent:
		f.Ident = *dst
	case HasContainerName:
		f.ContainerName = *dst
	case HasContainerID:
		f.ContainerID = *dst
	case HasCursor:
		f.Cursor = *dst
	}
}
