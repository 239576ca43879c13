package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestEndpointsPortsVaryFastest(t *testing.T) {
	o := Options{Hosts: []string{"a", "b"}, Ports: []int{1, 2}}
	var got []string
	for _, e := range o.Endpoints() {
		got = append(got, e.Addr)
	}
	if want := "a:1 a:2 b:1 b:2"; strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	o = Options{Sockets: []string{"/s1", "/s2"}, Hosts: []string{"a"}}
	if eps := o.Endpoints(); len(eps) != 2 || eps[0].Net != "unix" {
		t.Fatalf("sockets: %v", eps)
	}
}

func TestErrorSet(t *testing.T) {
	s, err := ParseErrorSet([]string{"1213,1020", "1205"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Has(1213) || !s.Has(1205) || s.Has(1062) || s.Has(0) {
		t.Fatalf("set %v", s)
	}
	all, _ := ParseErrorSet([]string{"all"})
	if !all.Has(1062) || all.Has(0) {
		t.Fatal("all")
	}
	if _, err := ParseErrorSet([]string{"12x"}); err == nil {
		t.Fatal("accepted 12x")
	}
}

func TestErrorClasses(t *testing.T) {
	for _, c := range []struct {
		err  error
		lost bool
		num  int
	}{
		{&mysql.MySQLError{Number: 1213}, false, 1213},
		{fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: 1927}), true, 1927},
		{mysql.ErrInvalidConn, true, ErrLost},
		{io.ErrUnexpectedEOF, true, ErrLost},
		{errors.New("syntax"), false, 0},
	} {
		if IsLost(c.err) != c.lost || Number(c.err) != c.num {
			t.Errorf("%v: lost %v number %d", c.err, IsLost(c.err), Number(c.err))
		}
	}
}

func TestTLSOptionsValidated(t *testing.T) {
	for _, o := range []Options{{SSL: "bogus"}, {SSL: "verify_ca"}, {SSL: "on", SSLCert: "x"}, {SSL: "on", SSLCA: "/nonexistent"}} {
		if _, err := registerTLS(&o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestConnectErrorHidesPassword(t *testing.T) {
	p := &Pool{opts: Options{User: "u", Password: "s3cret-pw"}}
	err := p.describe(Endpoint{"tcp", "h:1"}, errors.New("dial failed for s3cret-pw"))
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("password in %q", err)
	}
	err = p.describe(Endpoint{"tcp", "h:1"}, &mysql.MySQLError{Number: 1045, Message: "Access denied"})
	if !strings.Contains(err.Error(), "--mysql-password") {
		t.Fatalf("no fix named: %q", err)
	}
}

// TestConnectBoundWorded: a server that accepts and then says nothing (a
// frozen one: the kernel accepts for it) ends a read that needed a new
// connection at the connect timeout, in one line naming the endpoint and
// the fix, not the bare "context deadline exceeded".
func TestConnectBoundWorded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	p, err := Open(Options{Hosts: []string{"127.0.0.1"}, Ports: []int{port}, User: "u", ConnectTimeout: 300 * time.Millisecond}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	var one int
	err = p.DB(0).QueryRowContext(context.Background(), "SELECT 1").Scan(&one)
	want := fmt.Sprintf("cannot connect to 127.0.0.1:%d: timed out after 300ms; check --mysql-host/--mysql-port and that the server is up", port)
	if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want %q (and a deadline error within)", err, want)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s, bound 0.3 s", took)
	}
	// A read whose own context ends first keeps its context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.DB(0).QueryRowContext(ctx, "SELECT 1").Scan(&one); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(fmt.Sprint(err), "cannot connect") {
		t.Errorf("the caller's own deadline: %v", err)
	}
}
