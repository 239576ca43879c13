package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/loader"
)

// costLog is where make test's time goes: with OLTPBENCH_TEST_COSTLOG set
// to a file, every command ob runs adds a line to it: the test, the
// command's wall seconds, its own CPU seconds, the CPU seconds the test's
// MariaDB used meanwhile (each shard's tests run one at a time on a
// server of their own), and the command with secrets masked.
//
//	OLTPBENCH_TEST_COSTLOG=/tmp/cost.tsv make test
//	awk -F'\t' '{c[$1]+=$3+$4} END {for (k in c) print c[k], k}' /tmp/cost.tsv | sort -rn | head
func costLog(t *testing.T, args []string) func(*exec.Cmd) {
	path := os.Getenv("OLTPBENCH_TEST_COSTLOG")
	if path == "" {
		return func(*exec.Cmd) {}
	}
	start, server := time.Now(), serverCPU()
	return func(cmd *exec.Cmd) {
		if cmd.ProcessState == nil {
			return
		}
		own := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		line := fmt.Sprintf("%s\t%.1f\t%.1f\t%.1f\t%s\n", t.Name(), time.Since(start).Seconds(), own.Seconds(), serverCPU()-server,
			costArgs(args))
		costMu.Lock()
		defer costMu.Unlock()
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}

var (
	costMu   sync.Mutex
	flagName = regexp.MustCompile(`^--([\w-]+)=`)
)

// costArgs is a command line as the cost log keeps it: the values of secret
// options (as results judge them, and key files) and the keys in a
// storage URL hidden.
func costArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if m := flagName.FindStringSubmatch(a); m != nil && (result.SecretSetting(m[1]) || strings.HasSuffix(m[1], "-key")) {
			a = m[0] + "***"
		}
		out[i] = loader.RedactURL(a)
	}
	return strings.Join(out, " ")
}

// serverCPU is the test server's CPU seconds so far (0 if unknown).
func serverCPU() float64 {
	pid, err := os.ReadFile(filepath.Join(os.Getenv("OLTPBENCH_TEST_DIR"), "mysqld.pid"))
	if err != nil {
		return 0
	}
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
	if err != nil {
		return 0
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndex(s, ")")+1:]) // after the command's name: state, ppid, ...
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.ParseFloat(f[11], 64) // utime and stime, in clock ticks
	sys, _ := strconv.ParseFloat(f[12], 64)
	return (user + sys) / 100
}

func TestCostLogMasksSecrets(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{[]string{"run", "--mysql-password=p4ss", "--s3-secret-key=abc", "--mysql-ssl-key=k.pem", "--threads=2", "--foreign-keys=on"},
			[]string{"run --mysql-password=*** --s3-secret-key=*** --mysql-ssl-key=*** --threads=2 --foreign-keys=on"}},
		{[]string{"import", "--dir=s3://b/p?access-key=AK1&endpoint=http%3A%2F%2F127.0.0.1%3A1&secret-access-key=SK1"}, nil},
	} {
		got := costArgs(c.args)
		if c.want != nil && got != c.want[0] {
			t.Errorf("got %q, want %q", got, c.want[0])
		}
		if strings.Contains(got, "p4ss") || strings.Contains(got, "abc") || strings.Contains(got, "AK1") || strings.Contains(got, "SK1") {
			t.Errorf("a secret in %q", got)
		}
	}
}
