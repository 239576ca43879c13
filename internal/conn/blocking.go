//go:build linux

package conn

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const blockingSupported = true

// blockingConn reads and writes with blocking system calls on its own copy
// of the socket, outside Go's network poller: the thread that sent a statement
// sleeps in read(2) until the reply lands, as sysbench's threads do. The
// kernel then runs the server thread the statement woke on the CPU the client
// thread leaves, with the statement still in its cache, and client and server
// take turns there. Through the poller the thread goes on with other
// goroutines instead, and the woken server thread waits for, or moves to,
// another CPU: with a few connections per CPU the server then spends more per
// query (docs/ARCHITECTURE.md has the figures).
type blockingConn struct {
	fd     int
	local  net.Addr
	remote net.Addr

	// Reads and writes hold mu shared; Close, after shutdown(2) has woken
	// them, takes it exclusively before closing the descriptor, so that a
	// descriptor number is never reused under a call still in flight.
	mu     sync.RWMutex
	closed atomic.Bool
	reads  uint32 // only the goroutine that reads touches it
}

// yieldEvery is how many reads a connection makes between two yields to the
// scheduler. A goroutine that only ever blocks in system calls never passes
// through the scheduler: after 10 ms the runtime takes it for a runaway,
// signals its thread and hands its P to another thread, every 10 ms, for
// every connection. One yield every few milliseconds avoids that.
const yieldEvery = 16

// newBlockingConn takes over c's socket: it duplicates the descriptor,
// closes c and makes the duplicate blocking.
func newBlockingConn(c net.Conn) (net.Conn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = syscall.Dup(int(s)) }); err != nil {
		c.Close()
		return nil, err
	}
	if dupErr != nil {
		c.Close()
		return nil, os.NewSyscallError("dup", dupErr)
	}
	syscall.CloseOnExec(fd)
	bc := &blockingConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	// O_NONBLOCK belongs to the open file, which both descriptors share: clear
	// it once c is closed (which leaves the socket open through fd).
	c.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	return bc, nil
}

func (c *blockingConn) Read(p []byte) (int, error) {
	if c.reads++; c.reads%yieldEvery == 0 {
		runtime.Gosched()
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for {
		if c.closed.Load() {
			return 0, net.ErrClosed
		}
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN: // SO_RCVTIMEO expired
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, c.opError("read", err)
		case n == 0 && len(p) > 0:
			if c.closed.Load() {
				return 0, net.ErrClosed
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	done := 0
	for done < len(p) {
		if c.closed.Load() {
			return done, net.ErrClosed
		}
		n, err := syscall.Write(c.fd, p[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN: // SO_SNDTIMEO expired
			return done, os.ErrDeadlineExceeded
		case err != nil:
			return done, c.opError("write", err)
		}
		done += n
	}
	return done, nil
}

func (c *blockingConn) opError(op string, err error) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: os.NewSyscallError(op, err)}
}

func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return net.ErrClosed
	}
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR) // wakes a thread asleep in read or write
	c.mu.Lock()
	defer c.mu.Unlock()
	return os.NewSyscallError("close", syscall.Close(c.fd))
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

func (c *blockingConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *blockingConn) SetReadDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_RCVTIMEO, t)
}

func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_SNDTIMEO, t)
}

// setTimeout turns a deadline into the socket's relative timeout, which fits
// how the driver uses deadlines: set just before each read or write.
func (c *blockingConn) setTimeout(opt int, t time.Time) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed.Load() {
		return net.ErrClosed
	}
	var d time.Duration // the zero time: no timeout
	if !t.IsZero() {
		if d = time.Until(t); d < time.Microsecond {
			d = time.Microsecond // passed already: the next call times out at once
		}
	}
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	return os.NewSyscallError("setsockopt", syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv))
}

// dialBlocking dials as dialBuffered does and hands the socket to a blockingConn.
func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := dialKeepAlive(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	bc, err := newBlockingConn(c)
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: bc, r: bufio.NewReaderSize(bc, readBuffer)}, nil
}
