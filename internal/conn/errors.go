package conn

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// ErrLost is the error number reported for a lost connection (CR_SERVER_LOST),
// as libmysqlclient would report it; it is what --mysql-ignore-errors matches.
const ErrLost = 2013

// Server error numbers the code acts on.
const (
	ErrAccessDenied    = 1045 // ER_ACCESS_DENIED_ERROR
	ErrBadDB           = 1049 // ER_BAD_DB_ERROR: unknown database
	ErrDupKeyName      = 1061 // ER_DUP_KEYNAME: the index is there already
	ErrNoSuchTable     = 1146 // ER_NO_SUCH_TABLE
	ErrLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT
	ErrDeadlock        = 1213 // ER_LOCK_DEADLOCK
)

// Number returns the server error number of err, ErrLost for a broken
// connection, or 0 for anything else.
func Number(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	if IsLost(err) {
		return ErrLost
	}
	return 0
}

// Message is a server error's own message, without its number; any other
// error as it is.
func Message(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// SQLState is the server's SQLSTATE for err ("HY000" when it has none).
func SQLState(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.SQLState != [5]byte{} {
		return string(me.SQLState[:])
	}
	return "HY000"
}

// Code names err for an error breakdown: the server's error number
// ("1213"), or for the driver's own a number and a class ("2013 broken
// pipe", "2013 connection refused", "2013 i/o timeout"), or "other".
func Code(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return strconv.Itoa(int(me.Number))
	}
	if !IsLost(err) {
		return "other"
	}
	for _, c := range []struct {
		err  error
		name string
	}{{syscall.ECONNREFUSED, "connection refused"}, {syscall.ECONNRESET, "connection reset"}, {syscall.EPIPE, "broken pipe"},
		{io.ErrUnexpectedEOF, "unexpected EOF"}, {io.EOF, "EOF"}, {net.ErrClosed, "closed"}, {mysql.ErrInvalidConn, "invalid connection"},
		{driver.ErrBadConn, "bad connection"}} {
		if errors.Is(err, c.err) {
			return strconv.Itoa(ErrLost) + " " + c.name
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return strconv.Itoa(ErrLost) + " i/o timeout"
	}
	return strconv.Itoa(ErrLost) + " lost"
}

// IsLost reports whether err means the connection is gone and a new one is needed.
func IsLost(err error) bool {
	if err == nil {
		return false
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		// 1053 server shutdown in progress, 1927 connection killed (MariaDB),
		// 1317 query interrupted is not a lost connection.
		return me.Number == 1053 || me.Number == 1927 || me.Number == 2006 || me.Number == 2013
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, mysql.ErrPktSync) || errors.Is(err, mysql.ErrPktSyncMul)
}

// ErrorSet is a --mysql-ignore-errors list: numbers, or all.
type ErrorSet struct {
	All  bool
	nums map[int]bool
}

// ParseErrorSet parses "1213,1020,1205" or "all" (or "none"/"" for nothing).
func ParseErrorSet(lists []string) (ErrorSet, error) {
	s := ErrorSet{nums: map[int]bool{}}
	for _, it := range lists {
		for _, f := range strings.Split(it, ",") {
			f = strings.TrimSpace(f)
			switch strings.ToLower(f) {
			case "":
				continue
			case "all":
				s.All = true
				continue
			case "none":
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || n <= 0 {
				return s, errors.New("invalid --mysql-ignore-errors value " + strconv.Quote(f) + ": use error numbers like 1213,1205 or all")
			}
			s.nums[n] = true
		}
	}
	return s, nil
}

// Has reports whether error number n is in the set.
func (s ErrorSet) Has(n int) bool { return n != 0 && (s.All || s.nums[n]) }

// String lists the set.
func (s ErrorSet) String() string {
	if s.All {
		return "all"
	}
	var out []string
	for n := range s.nums {
		out = append(out, strconv.Itoa(n))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
