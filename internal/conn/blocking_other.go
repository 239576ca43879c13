//go:build !linux

package conn

import (
	"context"
	"net"
)

const blockingSupported = false

func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	return dialBuffered(ctx, network, addr)
}
