package dbgen

import (
	"fmt"
	"strconv"
)

// Writer receives a table's rows value by value.
type Writer interface {
	Int(v int64)
	// Money writes cents as a decimal with two places.
	Money(cents int64)
	Str(b []byte)
	EndRow() error
}

// Table is one of TPC-H's tables: its name, columns and rows. A table's
// rows are numbered by index (0-based): a part's partsupp rows and an
// order's lineitems share their part's or order's index.
type Table struct {
	Name    string
	Columns []string
	Key     string // the leading key column, by which an index's rows are found
	// PerIndex is how many rows an index makes on average.
	PerIndex float64
}

// Tables are the eight tables, in dbgen's order.
var Tables = []Table{
	{"part", []string{"p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container", "p_retailprice", "p_comment"}, "p_partkey", 1},
	{"partsupp", []string{"ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"}, "ps_partkey", suppPerPart},
	{"supplier", []string{"s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"}, "s_suppkey", 1},
	{"customer", []string{"c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment", "c_comment"}, "c_custkey", 1},
	{"orders", []string{"o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority", "o_clerk", "o_shippriority", "o_comment"}, "o_orderkey", 1},
	{"lineitem", []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"}, "l_orderkey", 4},
	{"nation", []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"}, "n_nationkey", 1},
	{"region", []string{"r_regionkey", "r_name", "r_comment"}, "r_regionkey", 1},
}

// Indexes is how many indexes a table has at this scale.
func (s *Scale) Indexes(table string) int64 {
	switch table {
	case "part", "partsupp":
		return s.Parts()
	case "supplier":
		return s.Suppliers()
	case "customer":
		return s.Customers()
	case "orders", "lineitem":
		return s.Orders()
	case "nation":
		return int64(len(nations.text))
	case "region":
		return int64(len(regions.text))
	}
	return 0
}

// KeyOf is the key of a table's index (0-based).
func KeyOf(table string, index int64) int64 {
	switch table {
	case "orders", "lineitem":
		return OrderKey(index + 1)
	case "nation", "region":
		return index
	}
	return index + 1
}

// Gen writes the rows of indexes [first, first+n) of table to w.
func (s *Scale) Gen(table string, first, n int64, w Writer) error {
	g := gen{Scale: s}
	switch table {
	case "part":
		return g.part(first, n, w)
	case "partsupp":
		return g.partsupp(first, n, w)
	case "supplier":
		return g.supplier(first, n, w)
	case "customer":
		return g.customer(first, n, w)
	case "orders":
		return g.orders(first, n, w, false, 0)
	case "lineitem":
		return g.orders(first, n, w, true, 0)
	case "nation":
		return g.nation(first, n, w)
	case "region":
		return g.region(first, n, w)
	}
	return fmt.Errorf("dbgen: no table %q", table)
}

type gen struct {
	*Scale
	s    streams
	buf  []byte
	tmp  []byte
	perm []int
	// fetched keeps touchText's reads.
	fetched byte
}

// appendPadded appends v in at least digits digits, zeros before it.
func appendPadded(b []byte, v int64, digits int) []byte {
	var d [20]byte
	n := len(strconv.AppendInt(d[:0], v, 10))
	for ; n < digits; n++ {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// char is a one-byte value.
func char(c byte) []byte { return chars[c : int(c)+1] }

var chars = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

var (
	partStreams     = []int{pMfgSD, pBrndSD, pTypeSD, pSizeSD, pCntrSD, pCmntSD, pNameSD}
	partsuppStreams = []int{psQtySD, psScstSD, psCmntSD}
	supplierStreams = []int{sAddrSD, sNtrgSD, sPhneSD, sAbalSD, sCmntSD, bbbJnkSD, bbbTypeSD, bbbCmntSD, bbbOffsetSD}
	customerStreams = []int{cAddrSD, cNtrgSD, cPhneSD, cAbalSD, cMsegSD, cCmntSD}
	orderStreams    = []int{oSuppSD, oClrkSD, oCmntSD, oOdateSD, oPrioSD, oCkeySD, oLcntSD,
		lQtySD, lDcntSD, lTaxSD, lShipSD, lSmodeSD, lPkeySD, lSkeySD, lSdteSD, lCdteSD, lRdteSD, lRflgSD, lCmntSD, hvarSD}
)

// retailPrice is a part's price in cents, from its key alone.
func retailPrice(p int64) int64 { return 90000 + (p/10)%20001 + (p%1000)*100 }

// partSupplier is the supplier of a part's snum-th partsupp row.
func (g *gen) partSupplier(p, snum int64) int64 {
	tot := g.Suppliers()
	return (p+snum*(tot/suppPerPart+(p-1)/tot))%tot + 1
}

func (g *gen) part(first, n int64, w Writer) error {
	g.s.seek(first+1, partStreams)
	perm := g.perm[:0]
	for range colors.text {
		perm = append(perm, 0)
	}
	g.perm = perm
	for i := first + 1; i <= first+n; i++ {
		// The name: five colors, the first of a permutation of all of them.
		for j := range perm {
			perm[j] = j
		}
		for j := range perm {
			k := g.s.random(int64(j), int64(len(perm)-1), pNameSD)
			perm[j], perm[k] = perm[k], perm[j]
		}
		name := g.buf[:0]
		for j := 0; j < 5; j++ {
			if j > 0 {
				name = append(name, ' ')
			}
			name = append(name, colors.text[perm[j]]...)
		}
		g.buf = name
		mfgr := g.s.random(1, 5, pMfgSD)
		brand := g.s.random(1, 5, pBrndSD)
		w.Int(i)
		w.Str(name)
		g.tmp = appendPadded(append(g.tmp[:0], "Manufacturer#"...), mfgr, 1)
		w.Str(g.tmp)
		g.tmp = appendPadded(append(g.tmp[:0], "Brand#"...), mfgr*10+brand, 2)
		w.Str(g.tmp)
		w.Str(partTypes.bytes[g.s.pick(partTypes, pTypeSD)])
		w.Int(g.s.random(1, 50, pSizeSD))
		w.Str(containers.bytes[g.s.pick(containers, pCntrSD)])
		w.Money(retailPrice(i))
		w.Str(g.s.text(14, pCmntSD))
		if err := w.EndRow(); err != nil {
			return err
		}
		g.s.next(partStreams)
	}
	return nil
}

func (g *gen) partsupp(first, n int64, w Writer) error {
	g.s.seek(first+1, partsuppStreams)
	var cmts [suppPerPart][]byte
	for i := first + 1; i <= first+n; i++ {
		// The comments first, their fetches together (touch); each
		// column has its stream, so the values are the same.
		for k := range cmts {
			cmts[k] = g.s.text(124, psCmntSD)
			g.fetched = touchText(g.fetched, cmts[k])
		}
		for snum := int64(0); snum < suppPerPart; snum++ {
			w.Int(i)
			w.Int(g.partSupplier(i, snum))
			w.Int(g.s.random(1, 9999, psQtySD))
			w.Money(g.s.random(100, 100000, psScstSD))
			w.Str(cmts[snum])
			if err := w.EndRow(); err != nil {
				return err
			}
		}
		g.s.next(partsuppStreams)
	}
	return nil
}

const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// address is a random string of 10 to 40 characters (dbgen's a_rnd): five
// characters from each value drawn.
func (g *gen) address(b []byte, i int) []byte {
	lo, hi := vstrRange(25)
	n := g.s.random(lo, hi, i)
	var v int64
	for j := int64(0); j < n; j++ {
		if j%5 == 0 {
			v = g.s.random(0, maxLong, i)
		}
		b = append(b, alphaNum[v&077])
		v >>= 6
	}
	return b
}

// phone is "CC-AAA-EEE-NNNN", the country code from the nation.
func (g *gen) phone(nation int64, i int) []byte {
	a := g.s.random(100, 999, i)
	e := g.s.random(100, 999, i)
	n := g.s.random(1000, 9999, i)
	b := appendPadded(g.tmp[:0], 10+nation, 2)
	b = appendPadded(append(b, '-'), a, 3)
	b = appendPadded(append(b, '-'), e, 3)
	g.tmp = appendPadded(append(b, '-'), n, 4)
	return g.tmp
}

func (g *gen) supplier(first, n int64, w Writer) error {
	g.s.seek(first+1, supplierStreams)
	var cmt []byte
	for i := first + 1; i <= first+n; i++ {
		w.Int(i)
		g.tmp = appendPadded(append(g.tmp[:0], "Supplier#"...), i, 9)
		w.Str(g.tmp)
		g.buf = g.address(g.buf[:0], sAddrSD)
		w.Str(g.buf)
		nation := g.s.random(0, int64(len(nations.text)-1), sNtrgSD)
		w.Int(nation)
		w.Str(g.phone(nation, sPhneSD))
		w.Money(g.s.random(-99999, 999999, sAbalSD))
		cmt = append(cmt[:0], g.s.text(63, sCmntSD)...)
		// Ten suppliers in 10,000 are talked of by customers (Q16's).
		bad := g.s.random(1, 10000, bbbCmntSD)
		typ := g.s.random(0, 100, bbbTypeSD)
		noise := g.s.random(0, int64(len(cmt))-19, bbbJnkSD)
		off := g.s.random(0, int64(len(cmt))-(19+noise), bbbOffsetSD)
		if bad <= 10 {
			copy(cmt[off:], "Customer ")
			word := "Complaints"
			if typ >= 50 {
				word = "Recommends"
			}
			copy(cmt[off+9+noise:], word)
		}
		w.Str(cmt)
		if err := w.EndRow(); err != nil {
			return err
		}
		g.s.next(supplierStreams)
	}
	return nil
}

func (g *gen) customer(first, n int64, w Writer) error {
	g.s.seek(first+1, customerStreams)
	for i := first + 1; i <= first+n; i++ {
		w.Int(i)
		g.tmp = appendPadded(append(g.tmp[:0], "Customer#"...), i, 9)
		w.Str(g.tmp)
		g.buf = g.address(g.buf[:0], cAddrSD)
		w.Str(g.buf)
		nation := g.s.random(0, int64(len(nations.text)-1), cNtrgSD)
		w.Int(nation)
		w.Str(g.phone(nation, cPhneSD))
		w.Money(g.s.random(-99999, 999999, cAbalSD))
		w.Str(segments.bytes[g.s.pick(segments, cMsegSD)])
		w.Str(g.s.text(73, cCmntSD))
		if err := w.EndRow(); err != nil {
			return err
		}
		g.s.next(customerStreams)
	}
	return nil
}

// order is one order and its lines.
type order struct {
	key, cust, total int64
	status           byte
	date             int64 // days from 1992-01-01
	priority, clerk  []byte
	comment          []byte
	lines            int
	l                [lcntMax]line
}

type line struct {
	part, supp, qty, price, discount, tax int64
	rflag, status                         byte
	ship, commit, receipt                 int64
	instruct, mode, comment               []byte
}

// makeOrder makes order i (1-based) with key key from the streams where they are.
func (g *gen) makeOrder(i, key int64, o *order) {
	o.key = key
	custMax := g.Customers()
	o.cust = g.s.random(1, custMax, oCkeySD)
	// A third of the customers have no orders.
	for delta := int64(1); o.cust%3 == 0; delta = -delta {
		o.cust = min(o.cust+delta, custMax)
	}
	o.date = g.s.random(92001, 92001+totDate-(121+30)-1, oOdateSD) - 92001
	o.priority = priorities.bytes[g.s.pick(priorities, oPrioSD)]
	clerk := g.s.random(1, max(g.scale*1000, 1000), oClrkSD)
	o.clerk = appendPadded(append(o.clerk[:0], "Clerk#"...), clerk, 9)
	o.comment = g.s.text(49, oCmntSD)
	o.total, o.status = 0, 'O'
	o.lines = int(g.s.random(1, lcntMax, oLcntSD))
	shipped := 0
	parts := g.Parts()
	for j := 0; j < o.lines; j++ {
		l := &o.l[j]
		l.qty = g.s.random(1, 50, lQtySD)
		l.discount = g.s.random(0, 10, lDcntSD)
		l.tax = g.s.random(0, 8, lTaxSD)
		l.instruct = instructions.bytes[g.s.pick(instructions, lShipSD)]
		l.mode = shipModes.bytes[g.s.pick(shipModes, lSmodeSD)]
		l.comment = g.s.text(27, lCmntSD)
		l.part = g.s.random(1, parts, lPkeySD)
		snum := g.s.random(0, 3, lSkeySD)
		l.supp = g.partSupplier(l.part, snum)
		l.price = retailPrice(l.part) * l.qty
		o.total += l.price * (100 - l.discount) / 100 * (100 + l.tax) / 100
		l.ship = o.date + g.s.random(1, 121, lSdteSD)
		l.commit = o.date + g.s.random(30, 90, lCdteSD)
		l.receipt = l.ship + g.s.random(1, 30, lRdteSD)
		if l.receipt <= int64(currentDate) {
			l.rflag = returnFlags.text[g.s.pick(returnFlags, lRflgSD)][0]
		} else {
			l.rflag = 'N'
		}
		if l.ship <= int64(currentDate) {
			l.status = 'F'
			shipped++
		} else {
			l.status = 'O'
		}
	}
	if shipped > 0 {
		o.status = 'P'
	}
	if shipped == o.lines {
		o.status = 'F'
	}
}

// touchLines reads the order's lines' comments, slices at random places
// of the text pool, one after another: their memory fetches overlap here,
// where when writing each would wait alone.
func touchLines(t byte, o *order) byte {
	for j := range o.lines {
		t = touchText(t, o.l[j].comment)
	}
	return t
}

// touchText reads a byte of each cache line of c (which the caller keeps,
// so that the reads are not left out).
func touchText(t byte, c []byte) byte {
	for k := 0; k < len(c); k += 64 {
		t ^= c[k]
	}
	if len(c) > 0 {
		t ^= c[len(c)-1]
	}
	return t
}

// orders writes orders (or their lines) of indexes [first, first+n);
// update > 0 makes the orders of refresh pair update instead (RF1's).
func (g *gen) orders(first, n int64, w Writer, lines bool, update int) error {
	start := first + 1
	seq := int64(0)
	if update > 0 {
		// RF1's orders are made after the dataset's, with the second of
		// the four key groups of every 32.
		start += g.Orders()
		seq = 1
	}
	g.s.seek(start, orderStreams)
	var o order
	for i := first + 1; i <= first+n; i++ {
		key := OrderKey(i)
		if seq > 0 {
			key = RefreshKey(i)
		}
		g.makeOrder(i, key, &o)
		if lines {
			g.fetched = touchLines(g.fetched, &o)
		}
		if err := g.writeOrder(&o, w, lines); err != nil {
			return err
		}
		g.s.next(orderStreams)
	}
	return nil
}

func (g *gen) writeOrder(o *order, w Writer, lines bool) error {
	if !lines {
		w.Int(o.key)
		w.Int(o.cust)
		w.Str(char(o.status))
		w.Money(o.total)
		w.Str(g.Date(o.date))
		w.Str(o.priority)
		w.Str(o.clerk)
		w.Int(0)
		w.Str(o.comment)
		return w.EndRow()
	}
	for j := 0; j < o.lines; j++ {
		l := &o.l[j]
		w.Int(o.key)
		w.Int(l.part)
		w.Int(l.supp)
		w.Int(int64(j + 1))
		w.Int(l.qty)
		w.Money(l.price)
		w.Money(l.discount)
		w.Money(l.tax)
		w.Str(char(l.rflag))
		w.Str(char(l.status))
		w.Str(g.Date(l.ship))
		w.Str(g.Date(l.commit))
		w.Str(g.Date(l.receipt))
		w.Str(l.instruct)
		w.Str(l.mode)
		w.Str(l.comment)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) nation(first, n int64, w Writer) error {
	ids := []int{nCmntSD}
	g.s.seek(first+1, ids)
	for i := first; i < first+n; i++ {
		w.Int(i)
		w.Str(nations.bytes[i])
		w.Int(nations.weight[i])
		w.Str(g.s.text(72, nCmntSD))
		if err := w.EndRow(); err != nil {
			return err
		}
		g.s.next(ids)
	}
	return nil
}

func (g *gen) region(first, n int64, w Writer) error {
	ids := []int{rCmntSD}
	g.s.seek(first+1, ids)
	for i := first; i < first+n; i++ {
		w.Int(i)
		w.Str(regions.bytes[i])
		w.Str(g.s.text(72, rCmntSD))
		if err := w.EndRow(); err != nil {
			return err
		}
		g.s.next(ids)
	}
	return nil
}

// RefreshOrders is how many orders a refresh pair inserts (RF1) and
// deletes (RF2): a thousandth of the orders, as dbgen counts them.
func (s *Scale) RefreshOrders() int64 { return s.base[4] / 10000 * s.scale * 10 }

// GenRefresh writes the orders (or their lines) refresh pair number pair
// (from 1) inserts: dbgen's orders.tbl.uN and lineitem.tbl.uN.
func (s *Scale) GenRefresh(pair int, lines bool, w Writer) error {
	return s.GenRefreshRange(pair, 0, s.RefreshOrders(), lines, w)
}

// GenRefreshRange is GenRefresh of the pair's orders [first, first+n).
func (s *Scale) GenRefreshRange(pair int, first, n int64, lines bool, w Writer) error {
	if pair < 1 {
		return fmt.Errorf("dbgen: refresh pair %d: pairs are numbered from 1", pair)
	}
	g := gen{Scale: s}
	return g.orders(int64(pair-1)*s.RefreshOrders()+first, n, w, lines, pair)
}

// RefreshDeletes are the order indexes (0-based, as Gen takes them) whose
// orders refresh pair number pair deletes (RF2): dbgen's delete.N.
func (s *Scale) RefreshDeletes(pair int) (first, n int64) {
	n = s.RefreshOrders()
	return int64(pair-1) * n, n
}

// RefreshKey is the key of the i-th order (1-based, over all pairs) RF1
// inserts.
func RefreshKey(i int64) int64 { return (i>>3)<<5 | 1<<3 | i&7 }

// LineItems is how many lineitem rows the orders have: each order's line
// count is the one value a row takes from its stream.
func (s *Scale) LineItems() int64 {
	var st streams
	ids := []int{oLcntSD}
	st.seek(1, ids)
	var n int64
	for i := int64(0); i < s.Orders(); i++ {
		n += st.random(1, lcntMax, oLcntSD)
		st.next(ids)
	}
	return n
}
