// Package dbgen makes TPC-H's eight tables row for row as TPC's dbgen
// makes them at the same scale factor (the specification's clause 4.2), so
// that the specification's answer set holds at SF 1: its random streams,
// value lists, text grammar and pool, and each table's rules. Any row can be
// made without the rows before it (a chunk of a table from its first row),
// so a load runs in parallel and resumes anywhere with the same rows.
package dbgen

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

const (
	suppPerPart = 4
	lcntMax     = 7
	// startDate is the first order date's day 0 (1992-01-01); currentDate
	// (1995-06-17) splits shipped lines from open ones.
	totDate = 2557
)

var (
	startDate   = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	currentDate = 1263 // days from startDate to 1995-06-17
)

// Scale is a scale factor as dbgen takes it: from 1 up, whole numbers (the
// rows scale by it); below 1, thousandths (0.01, 0.1), which scale each
// table's base row count.
type Scale struct {
	SF    float64
	scale int64             // dbgen's integer scale
	base  [6]int64          // part, psupp (parts), supplier, customer, orders: rows at scale 1
	dates [totDate][10]byte // day -> "YYYY-MM-DD"
}

// The tables' base rows at SF 1.
const (
	basePart     = 200000
	baseSupplier = 10000
	baseCustomer = 150000
	baseOrders   = 1500000
)

// NewScale checks sf: above 0; below 1 a multiple of 0.001, from 1 up a
// whole number.
func NewScale(sf float64) (*Scale, error) {
	if !(sf > 0) || math.IsInf(sf, 0) {
		return nil, fmt.Errorf("invalid --sf=%s: a scale factor above 0, e.g. --sf=1 (or 0.01 for a quick try)", fmtSF(sf))
	}
	s := &Scale{SF: sf, scale: 1}
	bases := [...]int64{basePart, basePart, baseSupplier, baseCustomer, baseOrders, baseOrders}
	if sf < 1 {
		milli := int64(1000 * sf)
		if math.Abs(float64(milli)-1000*sf) > 1e-6 || milli < 1 {
			return nil, fmt.Errorf("invalid --sf=%s: below 1 a scale factor is in thousandths, as dbgen takes it (0.001 to 0.999)", fmtSF(sf))
		}
		for i, b := range bases {
			s.base[i] = max(milli*b/1000, 1)
		}
	} else {
		if sf != math.Trunc(sf) {
			return nil, fmt.Errorf("invalid --sf=%s: from 1 up a scale factor is a whole number, as dbgen takes it", fmtSF(sf))
		}
		if sf >= 30000 {
			return nil, fmt.Errorf("invalid --sf=%s: scale factors from 30000 up take dbgen's 64-bit keys, which are not made here", fmtSF(sf))
		}
		s.scale = int64(sf)
		s.base = bases
	}
	for d := range s.dates {
		copy(s.dates[d][:], startDate.AddDate(0, 0, d).Format("2006-01-02"))
	}
	return s, nil
}

func fmtSF(sf float64) string { return strconv.FormatFloat(sf, 'f', -1, 64) }

// Rows of each table.
func (s *Scale) Parts() int64     { return s.base[0] * s.scale }
func (s *Scale) Suppliers() int64 { return s.base[2] * s.scale }
func (s *Scale) Customers() int64 { return s.base[3] * s.scale }

// Orders is the number of orders; order i (1-based) has key OrderKey(i).
func (s *Scale) Orders() int64 { return s.base[4] * s.scale }

// OrderKey is the key of order i (1-based): the keys are sparse, the
// first 8 of every 32 used (dbgen's mk_sparse).
func OrderKey(i int64) int64 { return (i>>3)<<5 | i&7 }

// OrderIndex is the order whose key is k, and whether k is one.
func OrderIndex(k int64) (int64, bool) {
	if k&24 != 0 {
		return 0, false
	}
	return (k>>5)<<3 | k&7, true
}

// Date is day d from 1992-01-01 as YYYY-MM-DD.
func (s *Scale) Date(d int64) []byte { return s.dates[d][:] }
