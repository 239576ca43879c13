package conn

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/options"
)

// Flags are the connection options of every command that reaches a server,
// spelled as sysbench's MySQL driver spells them.
type Flags struct {
	hosts, ports, sockets []string
	user, password        string
	passwordFile          string
	DB                    string
	ssl, sslCA, sslCert   string
	sslKey, sslCipher     string
	sessionVars           []string
	initSQL               []string
	connectTimeout        float64
	readTimeout           float64
	compress              bool
}

// Register adds the options to fs; defaultDB and defaultUser are
// --mysql-db's and --mysql-user's defaults ("" for the user: MySQL's root).
func (f *Flags) Register(fs *pflag.FlagSet, defaultDB, defaultUser string) {
	if defaultUser == "" {
		defaultUser = "root"
	}
	options.AddList(fs, &f.hosts, "mysql-host", []string{"localhost"}, "MySQL server host(s)")
	options.AddList(fs, &f.ports, "mysql-port", []string{"3306"}, "MySQL server port(s)")
	options.AddList(fs, &f.sockets, "mysql-socket", nil, "MySQL socket(s)")
	fs.StringVar(&f.user, "mysql-user", defaultUser, "MySQL user")
	fs.StringVar(&f.password, "mysql-password", "", "MySQL password (or MYSQL_PWD, --mysql-password-file)")
	fs.StringVar(&f.passwordFile, "mysql-password-file", "", "file holding the MySQL password")
	fs.StringVar(&f.DB, "mysql-db", defaultDB, "MySQL database name")
	fs.StringVar(&f.ssl, "mysql-ssl", "off", "TLS: off, on|required (encrypt), verify_ca, verify_identity")
	fs.Lookup("mysql-ssl").NoOptDefVal = "on"
	fs.StringVar(&f.sslCA, "mysql-ssl-ca", "", "CA certificate (PEM) to verify the server")
	fs.StringVar(&f.sslCert, "mysql-ssl-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.sslKey, "mysql-ssl-key", "", "client key (PEM)")
	fs.StringVar(&f.sslCipher, "mysql-ssl-cipher", "", "TLS 1.2 cipher suites by OpenSSL name, ':'-separated (e.g. ECDHE-RSA-AES128-GCM-SHA256)")
	options.AddList(fs, &f.sessionVars, "mysql-session-vars", nil, "session variables for every connection, e.g. 'tidb_enable_1pc=1,autocommit=1'")
	fs.StringArrayVar(&f.initSQL, "init-sql", nil, "statement to run on every new connection (repeatable)")
	fs.Float64Var(&f.connectTimeout, "mysql-connect-timeout", 10, "seconds to wait for a connection")
	fs.Float64Var(&f.readTimeout, "mysql-read-timeout", 0, "seconds a read from the server may wait before the connection counts as lost and is made anew (a half-open connection); 0: no limit")
	options.AddBool(fs, &f.compress, "mysql-compression", false, "use the protocol's compression (zlib)")
}

// Options checks the parsed options and makes the connection options, the
// password from its sources (fs tells whether --mysql-password was given).
func (f *Flags) Options(fs *pflag.FlagSet) (Options, error) {
	pw, err := PasswordFromSources(f.password, f.passwordFile, fs.Changed("mysql-password"))
	if err != nil {
		return Options{}, err
	}
	co := Options{Hosts: f.hosts, Sockets: f.sockets, User: f.user, Password: pw, DB: f.DB,
		SSL: f.ssl, SSLCA: f.sslCA, SSLCert: f.sslCert, SSLKey: f.sslKey, SSLCipher: f.sslCipher,
		SessionVars: f.sessionVars, InitSQL: f.initSQL, ConnectTimeout: time.Duration(f.connectTimeout * float64(time.Second)),
		ReadTimeout: time.Duration(f.readTimeout * float64(time.Second)), Compress: f.compress}
	if f.readTimeout < 0 {
		return co, fmt.Errorf("invalid --mysql-read-timeout=%g: seconds, 0 for no limit", f.readTimeout)
	}
	for _, p := range f.ports {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return co, fmt.Errorf("invalid --mysql-port=%s: a port number from 1 to 65535", p)
		}
		co.Ports = append(co.Ports, n)
	}
	for _, kv := range f.sessionVars {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return co, fmt.Errorf("invalid --mysql-session-vars entry %q: use name=value", kv)
		}
	}
	return co, nil
}
