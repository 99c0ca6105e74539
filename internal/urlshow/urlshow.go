// Package urlshow writes a URL the way specwatch shows it in labels, logs and errors: without
// the secrets a URL can carry. url.URL.Redacted masks only the password and keeps the user
// name and the query, where tokens travel (?access_token=…).
package urlshow

import (
	"net/url"
	"sort"
	"strings"
)

// String returns u without its user information and fragment, every query value replaced by
// "xxxxx" (the keys stay: they tell targets apart without telling their secrets).
func String(u *url.URL) string {
	c := *u
	c.User, c.Fragment, c.RawFragment = nil, "", ""
	if c.RawQuery != "" {
		q := c.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for i, k := range keys {
			for j := range q[k] {
				if i+j > 0 {
					b.WriteByte('&')
				}
				b.WriteString(url.QueryEscape(k))
				b.WriteString("=xxxxx")
			}
		}
		c.RawQuery = b.String()
	}
	return c.String()
}
