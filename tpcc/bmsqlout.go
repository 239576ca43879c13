package tpcc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BenchmarkSQL's output (--output=benchmarksql, the default with --props):
// its log lines that scripts grep, and its result directory, which its
// report scripts (generateReport.sh) read.

// bmsqlTypes are result.csv's ttype names, by transaction.
var bmsqlTypes = [numTx]string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"}

// logLine writes one line as BenchmarkSQL's log4j layout does.
func logLine(w io.Writer, format string, args ...any) {
	t := time.Now()
	fmt.Fprintf(w, "%s,%03d [main] INFO   jTPCC : Term-00, %s\n", t.Format("15:04:05"), t.Nanosecond()/1e6, fmt.Sprintf(format, args...))
}

// txRow is one transaction of data/result.csv.
type txRow struct {
	elapsed, latency time.Duration // since the session start; response time
	ttype            uint8
	rbk, err         bool
	skipped          uint8 // Delivery's districts without a new order
}

// resultDir writes data/result.csv off the hot path: terminals hand full
// batches to one writer goroutine and take empty ones back.
type resultDir struct {
	path  string
	start time.Time
	batch chan []txRow
	free  chan []txRow
	done  chan error
	f     *os.File
}

const rowBatch = 1024

// bmsqlDirName expands BenchmarkSQL's java.util.Formatter date patterns.
func bmsqlDirName(pattern string, t time.Time) string {
	return strings.NewReplacer("%tY", t.Format("2006"), "%tm", t.Format("01"), "%td", t.Format("02"),
		"%tH", t.Format("15"), "%tM", t.Format("04"), "%tS", t.Format("05")).Replace(pattern)
}

// openResultDir creates the directory (refusing one that exists, as
// BenchmarkSQL does) with run.properties, and starts result.csv.
func openResultDir(pattern string, start time.Time, properties []byte) (*resultDir, error) {
	path := bmsqlDirName(pattern, start)
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("result directory %s already exists: remove it or choose another --result-directory", path)
	}
	if err := os.MkdirAll(filepath.Join(path, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the result directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, "run.properties"), properties, 0o644); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(path, "data", "result.csv"))
	if err != nil {
		return nil, err
	}
	d := &resultDir{path: path, start: start, batch: make(chan []txRow, 64), free: make(chan []txRow, 64), done: make(chan error, 1), f: f}
	go d.write()
	return d, nil
}

func (d *resultDir) write() {
	w := bufio.NewWriterSize(d.f, 256<<10)
	w.WriteString("run,elapsed,latency,dblatency,ttype,rbk,dskipped,error\n")
	var b []byte
	for rows := range d.batch {
		for _, r := range rows {
			b = append(b[:0], "1,"...)
			b = strconv.AppendInt(b, r.elapsed.Milliseconds(), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, r.latency.Milliseconds(), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, r.latency.Milliseconds(), 10) // no queue between terminal and database
			b = append(b, ',')
			b = append(b, bmsqlTypes[r.ttype]...)
			b = append(b, ',')
			b = appendBool(b, r.rbk)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r.skipped), 10)
			b = append(b, ',')
			b = appendBool(b, r.err)
			b = append(b, '\n')
			w.Write(b)
		}
		select {
		case d.free <- rows[:0]:
		default:
		}
	}
	err := w.Flush()
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.done <- err
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// rows returns an empty batch.
func (d *resultDir) rows() []txRow {
	select {
	case b := <-d.free:
		return b
	default:
		return make([]txRow, 0, rowBatch)
	}
}

// close writes what is left and data/runInfo.csv.
func (d *resultDir) close(runInfo string) error {
	close(d.batch)
	err := <-d.done
	if werr := os.WriteFile(filepath.Join(d.path, "data", "runInfo.csv"), []byte(runInfo), 0o644); err == nil {
		err = werr
	}
	return err
}

// recorder is a terminal's batch of rows.
type rowRecorder struct {
	d    *resultDir
	rows []txRow
	mu   sync.Mutex // the last flush comes from the reporting goroutine
}

func (r *rowRecorder) add(row txRow) {
	r.mu.Lock()
	if r.rows == nil {
		r.rows = r.d.rows()
	}
	r.rows = append(r.rows, row)
	if len(r.rows) == cap(r.rows) {
		r.d.batch <- r.rows
		r.rows = nil
	}
	r.mu.Unlock()
}

func (r *rowRecorder) flush() {
	r.mu.Lock()
	if len(r.rows) > 0 {
		r.d.batch <- r.rows
	}
	r.rows = nil
	r.mu.Unlock()
}

// runProperties is run.properties: the props file as given with its
// password hidden, or, without one, the run's options as props keys.
func runProperties(p *props, cfg Config, minutes float64, limitTpm float64) []byte {
	if p != nil {
		var b strings.Builder
		for _, l := range strings.SplitAfter(string(p.raw), "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(l), "="); ok && strings.TrimSpace(k) == "password" {
				l = "password=****\n"
			}
			b.WriteString(l)
		}
		return []byte(b.String())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// written by oltpbench for this run (the connection is in its --mysql-* options)\ndb=mysql\nwarehouses=%d\nterminals=%d\n", cfg.Warehouses, cfg.Threads)
	if cfg.TxPerTerminal > 0 {
		fmt.Fprintf(&b, "runTxnsPerTerminal=%d\nrunMins=0\n", cfg.TxPerTerminal)
	} else {
		fmt.Fprintf(&b, "runTxnsPerTerminal=0\nrunMins=%s\n", strconv.FormatFloat(minutes, 'f', -1, 64))
	}
	fmt.Fprintf(&b, "limitTxnsPerMin=%s\nterminalWarehouseFixed=%v\n", strconv.FormatFloat(limitTpm, 'f', -1, 64), !cfg.RandomHome)
	total := 0
	for _, w := range cfg.Weights {
		total += w
	}
	for t, k := range []string{"newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight"} {
		fmt.Fprintf(&b, "%s=%s\n", k, strconv.FormatFloat(float64(cfg.Weights[t])*100/float64(total), 'f', -1, 64))
	}
	return []byte(b.String())
}
