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
			secretValues.ReplaceAllString(strings.Join(args, " "), "$1=***"))
		costMu.Lock()
		defer costMu.Unlock()
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}

var (
	costMu       sync.Mutex
	secretValues = regexp.MustCompile(`(--[\w-]*(?:password|secret|key)[\w-]*)=\S*`)
)

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
	got := secretValues.ReplaceAllString("run --mysql-password=p4ss --s3-secret-key=abc --threads=2", "$1=***")
	if want := "run --mysql-password=*** --s3-secret-key=*** --threads=2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
