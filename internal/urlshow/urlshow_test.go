package urlshow

import (
	"net/url"
	"strings"
	"testing"
)

// TestString: neither the user, the password nor a query value survives; the rest does.
func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"http://admin:hunter2@10.0.0.7:8080/metrics?access_token=SECRET&x=1#frag": "http://10.0.0.7:8080/metrics?access_token=xxxxx&x=xxxxx",
		"https://user@host/metrics":      "https://host/metrics",
		"http://127.0.0.1:8080/metrics":  "http://127.0.0.1:8080/metrics",
		"http://h/m?token=a&token=b":     "http://h/m?token=xxxxx&token=xxxxx",
		"http://h/m?%3Cbad=%3Cscript%3E": "http://h/m?%3Cbad=xxxxx",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		got := String(u)
		if got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
		for _, secret := range []string{"admin", "hunter2", "SECRET", "user@", "frag", "script"} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: %s shows %q", in, got, secret)
			}
		}
	}
}
