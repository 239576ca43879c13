//go:build linux

package conn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// pair returns a blockingConn dialled to a loopback listener and the
// listener's side of the connection.
func pair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := dialBlocking(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

func TestBlockingConnExchangesBytes(t *testing.T) {
	c, peer := pair(t)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("peer read %q, %v", buf, err)
	}
	// More reads than yieldEvery, each answered, to pass the yields.
	for i := 0; i < 3*yieldEvery; i++ {
		if _, err := peer.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf[:1]); err != nil || buf[0] != byte(i) {
			t.Fatalf("read %d: %v %v", i, buf[0], err)
		}
	}
	peer.Close()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the peer closed: %d, %v (want EOF)", n, err)
	}
}

func TestBlockingConnReadDeadline(t *testing.T) {
	c, _ := pair(t)
	if err := c.SetReadDeadline(time.Now().Add(30 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline: %v (want a timeout)", err)
	}
	// A zero deadline clears it: the read now waits for data.
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
}

func TestBlockingConnCloseWakesReader(t *testing.T) {
	// Repeated, so that in most rounds the reader is already asleep in
	// read(2) when Close comes; in the others it finds the connection closed.
	for round := 0; round < 20; round++ {
		c, _ := pair(t)
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			close(started)
			_, err := c.Read(make([]byte, 1))
			done <- err
		}()
		<-started
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }()
		for _, ch := range []chan error{done, closed} {
			select {
			case err := <-ch:
				if ch == done && err == nil {
					t.Fatal("read on a closed connection returned no error")
				}
				if ch == closed && err != nil {
					t.Fatalf("close: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not wake the blocked reader")
			}
		}
		if err := c.Close(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("second close: %v", err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("write after close: %v", err)
		}
	}
}
