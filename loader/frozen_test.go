package loader

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
)

// freezeAtCommit is a proxy in front of the test server that forwards
// nothing, either way, from the first COMMIT a client sends: the server
// as a client sees one that stopped answering at that moment. It returns
// the proxy's port and whether it has frozen.
func freezeAtCommit(t *testing.T) (int, *atomic.Bool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	server := net.JoinHostPort(os.Getenv("OLTPBENCH_TEST_HOST"), os.Getenv("OLTPBENCH_TEST_PORT"))
	frozen := new(atomic.Bool)
	pipe := func(dst io.Writer, src io.Reader, watch bool) {
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if err != nil {
				return
			}
			if watch && bytes.Contains(buf[:n], []byte("COMMIT")) {
				frozen.Store(true)
			}
			if !frozen.Load() {
				dst.Write(buf[:n])
			}
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			open = append(open, c, s)
			mu.Unlock()
			go pipe(s, c, true)
			go pipe(c, s, false)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, frozen
}

// TestFrozenAtCommit: a server that stops answering as a unit's COMMIT
// is sent: once the load's context ends (as a watch that found the
// server silent ends it), the load returns with an error, though a COMMIT
// takes no context.
func TestFrozenAtCommit(t *testing.T) {
	testPool(t, "oltpbench_frozen_commit") // the database, or a skip without the test server
	port, frozen := freezeAtCommit(t)
	co := conn.Options{Hosts: []string{"127.0.0.1"}, Ports: []int{port}, User: "root", DB: "oltpbench_frozen_commit"}
	t1 := *numbered
	t1.DDL, t1.Rows, t1.ChunkRows = "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64) NOT NULL)", 2000, 1000
	ds := dataset.Dataset{Workload: "frozen", Tables: []dataset.Table{t1}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Load(ctx, co, ds, Options{Threads: 1, Mode: "insert", Progress: "off"})
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); !frozen.Load(); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the load ended before a COMMIT: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no COMMIT within 30 s")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the load succeeded with its server frozen")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the load still waits on its COMMIT 10 s after its context ended")
	}
}
