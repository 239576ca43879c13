package result

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode: any bytes give a result or one error; a result decoded encodes
// and decodes to the same encoding (the round trip), and reading its figures
// or merging it with itself does not panic.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{
		"../compare/testdata/history/v1/tpcc-64-08.json",
		"../compare/testdata/history/v1/sysbench-oltp_point_select-16-00.json",
		"../../cmd/oltpbench/testdata/merge.json",
	} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format":"oltpbench-result/1","workload":"sysbench","totals":{"events":3}}`))
	f.Add([]byte(`{"format":"oltpbench-result/2","ops":[{"name":"x","count":1,"histogram":"HISTFAAAA"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode("r.json", b, nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		var e1, e2 bytes.Buffer
		if err := r.Encode(&e1); err != nil {
			return // a value JSON cannot hold (NaN from a format-1 upgrade): refused at write, not a crash
		}
		r2, err := Decode("r.json", e1.Bytes(), nil)
		if err != nil {
			t.Fatalf("an encoded result does not decode: %v\n%s", err, e1.Bytes())
		}
		if err := r2.Encode(&e2); err != nil || !bytes.Equal(e1.Bytes(), e2.Bytes()) {
			t.Fatalf("round trip differs (%v):\n%s\n---\n%s", err, e1.Bytes(), e2.Bytes())
		}
		r.Throughput()
		r.Latency("95")
		r.MeanLatency()
		r.Series()
		r.ErrorsByCode()
		r.AllFigures()
		if m, err := Merge([]*Result{r, r2}); err == nil {
			m.Throughput()
		}
	})
}
