package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"sync"

	config_util "github.com/prometheus/common/config"
	"golang.org/x/crypto/bcrypt"
)

// maxAuthCache bounds the remembered credentials; the cache is emptied when it is full. Only
// valid credentials enter it, so a handful of scrapers never fill it; hashes rotated in the
// web config leave stale entries behind, which this clears.
const maxAuthCache = 64

// basicAuth checks basic auth credentials against the web config's bcrypt hashes. bcrypt is
// slow by design (tens of ms per check) and a scraper sends the same credentials every time, so
// valid credentials are remembered, under a salted SHA-256 of user, hash and password: no
// password is kept in clear, and a hash changed in the file misses the cache. Failures are not
// remembered (guesses would evict the scrapers' entries) and are checked one at a time, which
// bounds the CPU a guesser gets while remembered scrapers pass without waiting.
type basicAuth struct {
	salt   [16]byte
	bcrypt sync.Mutex // one bcrypt check at a time

	mu    sync.Mutex
	valid map[[sha256.Size]byte]struct{}
}

func newBasicAuth() *basicAuth {
	a := &basicAuth{valid: make(map[[sha256.Size]byte]struct{})}
	rand.Read(a.salt[:])
	return a
}

// allow reports whether r carries the credentials of one of users (name → bcrypt hash).
// Nothing of the request's credentials is logged or kept in clear.
func (a *basicAuth) allow(users map[string]config_util.Secret, r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	hash, known := users[user]
	if !known {
		// Check against a real hash anyway, so that the reply takes as long as for a known user
		// (same bcrypt cost) and does not reveal which names exist.
		for _, h := range users {
			hash = h
			break
		}
	}
	key := a.key(user, string(hash), pass)
	a.mu.Lock()
	_, remembered := a.valid[key]
	a.mu.Unlock()
	if remembered && known {
		return true
	}
	a.bcrypt.Lock()
	err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass))
	a.bcrypt.Unlock()
	if err != nil || !known {
		return false
	}
	a.mu.Lock()
	if len(a.valid) >= maxAuthCache {
		clear(a.valid)
	}
	a.valid[key] = struct{}{}
	a.mu.Unlock()
	return true
}

func (a *basicAuth) key(fields ...string) [sha256.Size]byte {
	h := sha256.New()
	h.Write(a.salt[:])
	for _, f := range fields {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(f))))
		h.Write([]byte(f))
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}
