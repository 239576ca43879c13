// Package conn is the one connection layer of oltpbench: endpoints (host and
// port lists, sockets), TLS, password sources, per-connection session settings,
// connect counting and error classes. Nothing else imports the MySQL driver.
package conn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Options describes how to reach the server(s). Password is never printed.
type Options struct {
	Hosts    []string
	Ports    []int
	Sockets  []string
	User     string
	Password string
	DB       string

	SSL     string // off|on|required|verify_ca|verify_identity|preferred
	SSLCA   string
	SSLCert string
	SSLKey  string
	// SSLCipher is --mysql-ssl-cipher: OpenSSL names of TLS 1.2 suites,
	// ':'-separated ("" for Go's choice).
	SSLCipher string

	// SessionVars are "name=value" pairs set on every new connection.
	SessionVars []string
	// InitSQL statements run on every new connection, after SessionVars.
	InitSQL []string

	ConnectTimeout time.Duration
	// ReadTimeout, when set, fails a read that waits longer (the driver's
	// readTimeout): a connection whose server went silent (a half-open
	// connection) is then lost and made anew instead of hanging its thread.
	ReadTimeout time.Duration
	// Compress asks for the protocol's zlib compression (--mysql-compression).
	Compress bool
	// AllowLocalInfile enables LOAD DATA LOCAL from registered readers only.
	AllowLocalInfile bool
	// MaxAllowedPacket, when non-zero, caps the driver's packet size.
	MaxAllowedPacket int
	// NetIO is NetIOPoller (the default) or NetIOBlocking; see PlanNetIO.
	NetIO string
}

// PasswordFromSources resolves the password: flag, then file, then MYSQL_PWD.
func PasswordFromSources(flag, file string, flagSet bool) (string, error) {
	if flagSet {
		return flag, nil
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("cannot read --mysql-password-file: %w", errors.Unwrap(err))
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	if v, ok := os.LookupEnv("MYSQL_PWD"); ok {
		return v, nil
	}
	return flag, nil
}

// Endpoint is one address connections can go to.
type Endpoint struct {
	Net, Addr string
}

func (e Endpoint) String() string { return e.Addr }

// Endpoints lists every address in sysbench's order: sockets if given,
// otherwise hosts x ports with ports varying fastest.
func (o *Options) Endpoints() []Endpoint {
	var eps []Endpoint
	if len(o.Sockets) > 0 {
		for _, s := range o.Sockets {
			eps = append(eps, Endpoint{"unix", s})
		}
		return eps
	}
	hosts, ports := o.Hosts, o.Ports
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	if len(ports) == 0 {
		ports = []int{3306}
	}
	for _, h := range hosts {
		for _, p := range ports {
			eps = append(eps, Endpoint{"tcp", net.JoinHostPort(h, strconv.Itoa(p))})
		}
	}
	return eps
}

var driverLogger = log.New(io.Discard, "", 0)

func init() {
	// The driver logs "[mysql] unexpected EOF" and the like on its own; we report
	// errors ourselves, once, without connection details.
	_ = mysql.SetLogger(driverLogger)
}

// Pool holds one *sql.DB per endpoint and hands out pinned connections round-robin.
type Pool struct {
	opts  Options
	eps   []Endpoint
	dbs   []*sql.DB
	conns []driver.Connector // each endpoint's, under its *sql.DB
	next  atomic.Uint64
	// open are the connections the pool dialed and has not closed, for
	// Abort.
	mu   sync.Mutex
	open map[*bufferedConn]bool
}

// Abort closes every connection the pool opened, under whatever waits on
// it: a statement waiting for a server that does not answer fails at once
// (its connection lost). For a command whose context ended (a watch that
// found the server not answering) where its statements take none.
func (p *Pool) Abort() {
	p.mu.Lock()
	open := p.open
	p.open = nil
	p.mu.Unlock()
	for c := range open {
		c.Conn.Close()
	}
}

// dial is d, the connection kept in open until it is closed.
func (p *Pool) dial(d func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d(ctx, network, addr)
		if bc, ok := c.(*bufferedConn); ok && err == nil {
			p.mu.Lock()
			if p.open == nil {
				p.open = map[*bufferedConn]bool{}
			}
			p.open[bc] = true
			p.mu.Unlock()
			bc.onClose = func() { p.mu.Lock(); delete(p.open, bc); p.mu.Unlock() }
		}
		return c, err
	}
}

// Open prepares the pool; it does not connect yet. maxConns bounds each endpoint's pool.
func Open(o Options, maxConns int) (*Pool, error) {
	p := &Pool{opts: o, eps: o.Endpoints()}
	tlsName, err := registerTLS(&o)
	if err != nil {
		return nil, err
	}
	for _, ep := range p.eps {
		cfg := mysql.NewConfig()
		cfg.User = o.User
		cfg.Passwd = o.Password
		cfg.Net = ep.Net
		cfg.Addr = ep.Addr
		cfg.DBName = o.DB
		cfg.Timeout = o.ConnectTimeout
		if cfg.Timeout == 0 {
			cfg.Timeout = 10 * time.Second
		}
		cfg.ReadTimeout = o.ReadTimeout
		if err := cfg.Apply(mysql.EnableCompression(o.Compress)); err != nil {
			return nil, err
		}
		cfg.AllowNativePasswords = true
		cfg.AllowCleartextPasswords = tlsName != ""
		cfg.Logger = driverLogger
		cfg.TLSConfig = tlsName
		if o.MaxAllowedPacket > 0 {
			cfg.MaxAllowedPacket = o.MaxAllowedPacket
		}
		cfg.AllowAllFiles = false
		cfg.DialFunc = p.dial(dialBuffered)
		if o.NetIO == NetIOBlocking {
			cfg.DialFunc = p.dial(dialBlocking)
		}
		if len(o.SessionVars) > 0 {
			cfg.Params = map[string]string{}
			for _, kv := range o.SessionVars {
				k, v, _ := strings.Cut(kv, "=")
				cfg.Params[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		base, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, fmt.Errorf("connection settings for %s: %w", ep, err)
		}
		sc := &sessionConnector{base: base, pool: p, ep: ep}
		p.conns = append(p.conns, sc)
		db := sql.OpenDB(sc)
		db.SetMaxOpenConns(maxConns + 2)
		db.SetMaxIdleConns(maxConns + 2)
		db.SetConnMaxLifetime(0)
		p.dbs = append(p.dbs, db)
	}
	return p, nil
}

// Endpoints returns the pool's endpoints in round-robin order.
func (p *Pool) Endpoints() []Endpoint { return p.eps }

// Conn returns a connection from the next endpoint in round-robin order.
func (p *Pool) Conn(ctx context.Context) (*sql.Conn, error) {
	i := int(p.next.Add(1)-1) % len(p.dbs)
	return p.ConnAt(ctx, i)
}

// ConnAt returns a connection to endpoint i.
func (p *Pool) ConnAt(ctx context.Context, i int) (*sql.Conn, error) {
	c, err := p.dbs[i%len(p.dbs)].Conn(ctx)
	if err != nil {
		return nil, p.describe(p.eps[i%len(p.eps)], err)
	}
	return c, nil
}

// DB returns the *sql.DB of endpoint i, for administrative statements.
func (p *Pool) DB(i int) *sql.DB { return p.dbs[i%len(p.dbs)] }

// Dial opens a pool of n connections per endpoint and checks that every
// endpoint answers.
func Dial(ctx context.Context, o Options, n int) (*Pool, error) {
	pool, err := Open(o, n)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Ping connects once to every endpoint and returns the first error, described.
func (p *Pool) Ping(ctx context.Context) error {
	for i := range p.dbs {
		c, err := p.ConnAt(ctx, i)
		if err != nil {
			return err
		}
		c.Close()
	}
	return nil
}

// Close closes every endpoint's pool.
func (p *Pool) Close() error {
	for _, db := range p.dbs {
		db.Close()
	}
	return nil
}

// Raw runs f on a fresh pinned connection to the next endpoint. If f returns
// driver.ErrBadConn the connection is discarded rather than reused.
func (p *Pool) Raw(ctx context.Context, f func(dc driver.Conn) error) error {
	c, err := p.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error { return f(dc.(driver.Conn)) })
}

// Dialer opens one connection at a time, for a workload whose threads
// connect when they ask to (a sysbench script's connect()): the caller owns
// and closes it.
type Dialer interface {
	Connect(ctx context.Context) (driver.Conn, Endpoint, error)
}

// Connect opens a connection to the next endpoint, with the session's
// settings (--init-sql, session variables) applied; the error is the
// driver's, for the caller to word (it names the endpoint).
func (p *Pool) Connect(ctx context.Context) (driver.Conn, Endpoint, error) {
	i := int(p.next.Add(1)-1) % len(p.conns)
	dc, err := p.conns[i].Connect(ctx)
	return dc, p.eps[i], err
}

// ConnectError is a connect failure described for the user; it unwraps to the cause.
type ConnectError struct {
	Msg string
	Err error
}

func (e *ConnectError) Error() string { return e.Msg }
func (e *ConnectError) Unwrap() error { return e.Err }

func (p *Pool) describe(ep Endpoint, err error) error {
	return &ConnectError{Msg: p.describeMsg(ep, err).Error(), Err: err}
}

// describeMsg turns a connect error into one line naming the fix; never the password.
func (p *Pool) describeMsg(ep Endpoint, err error) error {
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == ErrAccessDenied:
		return fmt.Errorf("access denied for user %q at %s: check --mysql-user and --mysql-password (or MYSQL_PWD, --mysql-password-file)", p.opts.User, ep)
	case errors.As(err, &me) && me.Number == ErrBadDB:
		return fmt.Errorf("unknown database %q at %s: create it or run prepare first (--mysql-db)", p.opts.DB, ep)
	case errors.As(err, &me):
		return fmt.Errorf("connecting to %s: %s (error %d)", ep, Redact(me.Message, p.opts.Password), me.Number)
	case isTimeout(err):
		return errors.New(p.timedOut(ep))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to %s: connection refused; check --mysql-host/--mysql-port and that the server is up", ep)
	default:
		return fmt.Errorf("cannot connect to %s: %s", ep, Redact(err.Error(), p.opts.Password))
	}
}

// timedOut is a connect that its bound ended, worded.
func (p *Pool) timedOut(ep Endpoint) string {
	return fmt.Sprintf("cannot connect to %s: timed out after %s; check --mysql-host/--mysql-port and that the server is up", ep, p.Timeout())
}

// Timeout bounds a connect (--mysql-connect-timeout, 10 s if unset), and an
// administrative statement sent beside a run.
func (p *Pool) Timeout() time.Duration {
	if p.opts.ConnectTimeout == 0 {
		return 10 * time.Second
	}
	return p.opts.ConnectTimeout
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// Redact replaces the secret in s, so errors can be shown.
func Redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "****")
}

// sessionConnector runs --init-sql and the session variables on every new connection.
type sessionConnector struct {
	base driver.Connector
	pool *Pool
	ep   Endpoint
}

func (c *sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	// The connect timeout bounds the whole connect: the driver bounds only
	// the dial with it, and a server that accepts and then says nothing (a
	// frozen one: the kernel accepts for it) would hold the handshake, and
	// --init-sql, forever. The context ends only the connect: the driver
	// stops watching it once the connection is made.
	// The connect's own bound ending it is worded here, where the
	// endpoint is known: a read that needed a new connection would
	// otherwise fail with the bare "context deadline exceeded".
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.pool.Timeout(), errConnectBound)
	defer cancel()
	bounded := func(err error) error {
		if parent.Err() == nil && errors.Is(context.Cause(ctx), errConnectBound) {
			return &ConnectError{Msg: c.pool.timedOut(c.ep), Err: errors.Join(context.DeadlineExceeded, err)}
		}
		return err
	}
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, bounded(err)
	}
	if len(c.pool.opts.InitSQL) > 0 {
		ex, ok := dc.(driver.ExecerContext)
		if !ok {
			dc.Close()
			return nil, errors.New("driver cannot run --init-sql")
		}
		for _, q := range c.pool.opts.InitSQL {
			if _, err := ex.ExecContext(ctx, q, nil); err != nil {
				dc.Close()
				return nil, bounded(fmt.Errorf("--init-sql %q: %w", q, err))
			}
		}
	}
	return dc, nil
}

// errConnectBound is the cause of a connect that --mysql-connect-timeout
// ended.
var errConnectBound = errors.New("connect timeout")

func (c *sessionConnector) Driver() driver.Driver { return c.base.Driver() }

var tlsSeq atomic.Int64

// registerTLS registers a TLS config for the --mysql-ssl mode and returns its
// driver name ("" for off).
func registerTLS(o *Options) (string, error) {
	mode := strings.ToLower(o.SSL)
	switch mode {
	case "", "off", "disabled", "0", "false":
		return "", nil
	case "preferred":
		return "preferred", nil
	case "on", "required", "1", "true", "verify_ca", "verify_identity":
	default:
		return "", fmt.Errorf("invalid --mysql-ssl=%s: use off, on, required, verify_ca or verify_identity", o.SSL)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.SSLCipher != "" {
		ids, err := cipherSuites(o.SSLCipher)
		if err != nil {
			return "", err
		}
		// Go chooses TLS 1.3's suites itself: a suite asked for is TLS 1.2's.
		cfg.CipherSuites, cfg.MaxVersion = ids, tls.VersionTLS12
	}
	if o.SSLCA != "" {
		pem, err := os.ReadFile(o.SSLCA)
		if err != nil {
			return "", fmt.Errorf("cannot read --mysql-ssl-ca: %w", errors.Unwrap(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return "", fmt.Errorf("--mysql-ssl-ca %s holds no PEM certificate", o.SSLCA)
		}
		cfg.RootCAs = pool
	}
	if (o.SSLCert == "") != (o.SSLKey == "") {
		return "", errors.New("--mysql-ssl-cert and --mysql-ssl-key go together: give both")
	}
	if o.SSLCert != "" {
		kp, err := tls.LoadX509KeyPair(o.SSLCert, o.SSLKey)
		if err != nil {
			return "", fmt.Errorf("cannot load --mysql-ssl-cert/--mysql-ssl-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{kp}
	}
	switch mode {
	case "verify_identity":
		if cfg.RootCAs == nil {
			return "", errors.New("--mysql-ssl=verify_identity needs --mysql-ssl-ca")
		}
		// Server name is filled per endpoint by the driver from Addr.
	case "verify_ca":
		if cfg.RootCAs == nil {
			return "", errors.New("--mysql-ssl=verify_ca needs --mysql-ssl-ca")
		}
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true // chain checked below, host name not
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(raw, roots)
		}
	default: // on, required: encrypt, do not verify (as sysbench and mysql --ssl-mode=REQUIRED)
		cfg.InsecureSkipVerify = true
	}
	name := fmt.Sprintf("oltpbench-%d", tlsSeq.Add(1))
	if err := mysql.RegisterTLSConfig(name, cfg); err != nil {
		return "", err
	}
	return name, nil
}

func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return err
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

var readerSeq atomic.Int64

// LocalInfile registers r for one LOAD DATA LOCAL statement and returns the
// file name to put in the statement; call done afterwards. AllowAllFiles stays
// off, so the server can only ask for what was registered.
func LocalInfile(r io.Reader) (file string, done func()) {
	name := "oltpbench-" + strconv.FormatInt(readerSeq.Add(1), 10)
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	return "Reader::" + name, func() { mysql.DeregisterReaderHandler(name) }
}

// CommandEnv is the connection for a user's command run beside a benchmark
// (a plan's reset_command, an event's command): OLTPBENCH_MYSQL_* (the first
// host, port and socket), the password as MYSQL_PWD (which MySQL's and
// MariaDB's clients read), and this binary as OLTPBENCH.
func (o Options) CommandEnv() []string {
	env := []string{"OLTPBENCH_MYSQL_USER=" + o.User, "OLTPBENCH_MYSQL_DB=" + o.DB}
	if len(o.Hosts) > 0 {
		env = append(env, "OLTPBENCH_MYSQL_HOST="+o.Hosts[0])
	}
	if len(o.Ports) > 0 {
		env = append(env, fmt.Sprintf("OLTPBENCH_MYSQL_PORT=%d", o.Ports[0]))
	}
	if len(o.Sockets) > 0 {
		env = append(env, "OLTPBENCH_MYSQL_SOCKET="+o.Sockets[0])
	}
	if o.Password != "" {
		env = append(env, "MYSQL_PWD="+o.Password)
	}
	if self, err := os.Executable(); err == nil {
		env = append(env, "OLTPBENCH="+self)
	}
	return env
}

// opensslSuites are the TLS 1.2 suites Go has, by their OpenSSL names (the
// names MySQL clients and sysbench's --mysql-ssl-cipher take).
var opensslSuites = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// cipherSuites reads --mysql-ssl-cipher: OpenSSL names (or Go's, such as
// TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256), separated by ':' or ','.
func cipherSuites(spec string) ([]uint16, error) {
	var ids []uint16
	for _, n := range strings.FieldsFunc(spec, func(r rune) bool { return r == ':' || r == ',' }) {
		id, ok := opensslSuites[strings.ToUpper(strings.TrimSpace(n))]
		for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
			if cs.Name == strings.TrimSpace(n) {
				id, ok = cs.ID, true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown cipher %q in --mysql-ssl-cipher: give TLS 1.2 suites by OpenSSL name, e.g. ECDHE-RSA-AES128-GCM-SHA256", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
