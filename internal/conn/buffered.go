package conn

import (
	"bufio"
	"context"
	"net"
	"time"
)

// readBuffer is the read size under the driver. The driver reads through a
// 4 KiB buffer, so a 100-row range result (about 12 KB) costs several read
// system calls; libmysqlclient reads 16 KiB at once. One larger read serves
// the driver's small ones from memory.
const readBuffer = 32 << 10

type bufferedConn struct {
	net.Conn
	r       *bufio.Reader
	onClose func() // the pool's: it forgets the connection (Pool.Abort)
}

func (c *bufferedConn) Close() error {
	if c.onClose != nil {
		c.onClose()
	}
	return c.Conn.Close()
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func dialBuffered(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := dialKeepAlive(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBuffer)}, nil
}

func dialKeepAlive(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		// The driver enables keep-alives only on a *net.TCPConn it sees itself.
		tc.SetKeepAlive(true)
		tc.SetKeepAlivePeriod(15 * time.Second)
	}
	return c, nil
}
