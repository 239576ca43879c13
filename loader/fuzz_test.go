package loader

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzOpenStore: a --dir URL opens a store or fails with one line, and a
// credential in it (any parameter named like one, or a password before the
// bucket) never reaches the message or the store's location.
func FuzzOpenStore(f *testing.F) {
	f.Add("bucket", "prefix/x", "endpoint=http://127.0.0.1:9000&region=us-east-1", uint8(1), "SECRETsecret1234", false)
	f.Add("b", "", "force-path-style=maybe", uint8(0), "AKIAxxxxxxxxxxxx", false)
	f.Add("b", "p", "endpoint=ftp://x", uint8(4), "tok-en-12345678", false)
	f.Add("b", "p", "unknown=1", uint8(5), "misspelt-secret-0", true)
	f.Fuzz(func(t *testing.T, bucket, prefix, extra string, which uint8, secret string, userinfo bool) {
		names := []string{"access-key", "secret-access-key", "session-token", "external-id", "secret_access_key", "aws-secret-key", "sessiontoken"}
		if len(secret) < 8 || strings.Contains(bucket+prefix+extra, secret) || strings.ContainsAny(secret, "\x00") ||
			strings.Trim(secret, "0123456789abcdefABCDEFxuU\\") == "" {
			// Too short to tell apart, given in the open elsewhere, or made
			// only of what Go's quoting of other input writes (\x80 then 0s).
			return
		}
		esc := url.QueryEscape(secret)
		raw := "s3://" + bucket + "/" + prefix + "?" + extra + "&" + names[int(which)%len(names)] + "=" + esc
		if userinfo {
			raw = "s3://user:" + url.PathEscape(secret) + "@" + bucket + "/" + prefix + "?" + extra
		}
		st, err := OpenStore(raw, 0)
		var shown string
		if err != nil {
			shown = err.Error()
			if shown == "" || strings.Contains(shown, "\n") {
				t.Fatalf("%q: want one error line, got %q", raw, shown)
			}
		} else {
			shown = st.Location()
		}
		if strings.Contains(shown, secret) || strings.Contains(shown, esc) {
			t.Fatalf("%q: the secret is in %q", raw, shown)
		}
		if r := RedactURL(raw); strings.Contains(r, esc) {
			t.Fatalf("RedactURL(%q) = %q keeps the secret", raw, r)
		}
	})
}

// FuzzManifest: any manifest file reads as a manifest or one error line,
// and a manifest read summarizes and gives its import statements.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"format":"` + ManifestFormat + `","workload":"sysbench","database":"sbtest","tables":[{"name":"sbtest1","rows":100,"files":["sbtest.sbtest1.000000001.csv"],"columns":["id","k","c","pad"]}]}`))
	f.Add([]byte(`{"format":"other"}`))
	f.Add([]byte(`{"format":"` + ManifestFormat + `","tables":[{"name":"","files":null}],"shards":3,"shard":7}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "db-manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dirStore(dir), "")
		if err != nil {
			if s := err.Error(); s == "" || strings.Contains(s, "\n") {
				t.Fatalf("want one error line, got %q", s)
			}
			return
		}
		m.Summary(io.Discard)
		ImportSQL(m, m.Location(), 4)
	})
}
