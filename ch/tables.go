package ch

import (
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// The tables CH-benCHmark adds to TPC-C's, with go-tpc's column names (its
// `ch run` then works on this dataset), and the sizes of the CH spec.
const (
	Suppliers = 10000
	Nations   = 62
	Regions   = 5
)

// TableNames are the added tables, in load order.
var TableNames = []string{"region", "nation", "supplier"}

var ddl = map[string]string{
	"region": `CREATE TABLE region (
  r_regionkey BIGINT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152),
  PRIMARY KEY (r_regionkey))`,
	"nation": `CREATE TABLE nation (
  n_nationkey BIGINT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey BIGINT NOT NULL, n_comment VARCHAR(152),
  PRIMARY KEY (n_nationkey))`,
	"supplier": `CREATE TABLE supplier (
  s_suppkey BIGINT NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey BIGINT NOT NULL,
  s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL,
  PRIMARY KEY (s_suppkey))`,
}

// regionNames are TPC-H's regions, keyed 0-4.
var regionNames = [Regions]string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// nationKeys: the CH spec keys its 62 nations by the ASCII code of a
// character of [0-9A-Za-z], so that the first character of c_state (TPC-C's
// alphanumerics) names a customer's nation: ascii(substr(c_state,1,1)).
var nationKeys = func() [Nations]int64 {
	var k [Nations]int64
	i := 0
	for _, r := range [][2]byte{{'0', '9'}, {'A', 'Z'}, {'a', 'z'}} {
		for c := r[0]; c <= r[1]; c++ {
			k[i] = int64(c)
			i++
		}
	}
	return k
}()

// nations are 62 names, with TPC-H's 25 among them (the queries name
// CHINA, JAPAN, INDIA, GERMANY), and their regions.
var nations = [Nations]struct {
	name   string
	region int64
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0}, {"FRANCE", 3},
	{"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4},
	{"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3}, {"SAUDI ARABIA", 4},
	{"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1}, {"AUSTRALIA", 2}, {"AUSTRIA", 3},
	{"BELGIUM", 3}, {"BOLIVIA", 1}, {"CAMBODIA", 2}, {"CAMEROON", 0}, {"CHILE", 1}, {"COLOMBIA", 1}, {"CUBA", 1},
	{"DENMARK", 3}, {"ECUADOR", 1}, {"FINLAND", 3}, {"GHANA", 0}, {"GREECE", 3}, {"HUNGARY", 3}, {"ISRAEL", 4},
	{"ITALY", 3}, {"KUWAIT", 4}, {"LEBANON", 4}, {"MALAYSIA", 2}, {"MEXICO", 1}, {"NETHERLANDS", 3}, {"NIGERIA", 0},
	{"NORWAY", 3}, {"OMAN", 4}, {"PAKISTAN", 2}, {"PHILIPPINES", 2}, {"POLAND", 3}, {"PORTUGAL", 3}, {"QATAR", 4},
	{"SENEGAL", 0}, {"SPAIN", 3}, {"SWEDEN", 3}, {"SYRIA", 4}, {"THAILAND", 2}, {"TUNISIA", 0}, {"URUGUAY", 1},
}

// Tables are region, nation and supplier: a chunk each (they are small).
func Tables() []dataset.Table {
	return []dataset.Table{
		{Name: "region", DDL: ddl["region"], Columns: []string{"r_regionkey", "r_name", "r_comment"}, Rows: Regions, ChunkRows: Regions,
			KeyColumn: "r_regionkey", KeyOf: func(row int64) int64 { return row }, Gen: genRegion},
		{Name: "nation", DDL: ddl["nation"], Columns: []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"}, Rows: Nations, ChunkRows: Nations,
			KeyColumn: "n_nationkey", KeyOf: func(row int64) int64 { return nationKeys[row] }, Gen: genNation},
		{Name: "supplier", DDL: ddl["supplier"], Columns: []string{"s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"},
			Rows: Suppliers, ChunkRows: Suppliers, KeyColumn: "s_suppkey", KeyOf: func(row int64) int64 { return row }, Gen: genSupplier},
	}
}

// revenue1 is the view Q15 reads (the CH spec's, as go-tpc creates it);
// tables are named by the layout.
const revenue1 = `CREATE OR REPLACE VIEW revenue1 (supplier_no, total_revenue) AS
SELECT mod((s_w_id * s_i_id), 10000) AS supplier_no, sum(ol_amount) AS total_revenue
FROM order_line, stock
WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND ol_delivery_d >= '2007-01-02 00:00:00.000000'
GROUP BY mod((s_w_id * s_i_id), 10000)`

func genRegion(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 160)
	for row := first; row < first+n; row++ {
		w.Int(row)
		w.Plain([]byte(regionNames[row]))
		w.Str(string(words(b[:0], r, 31, 115)))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genNation(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 160)
	for row := first; row < first+n; row++ {
		w.Int(nationKeys[row])
		w.Plain([]byte(nations[row].name))
		w.Int(nations[row].region)
		w.Str(string(words(b[:0], r, 31, 114)))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// genSupplier writes TPC-H's supplier columns: Supplier#000000001, a phone
// number whose country code follows the nation, a balance in
// [-999.99, 9999.99] and a comment, some of which complain ("bad", Q16).
func genSupplier(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 128)
	for row := first; row < first+n; row++ {
		w.Int(row)
		b = append(b[:0], "Supplier#"...)
		b = appendPadded(b, row, 9)
		w.Plain(b)
		w.Plain(alnum(b[:0], r, 10, 40))
		nation := r.Uniform(0, Nations-1)
		w.Int(nationKeys[nation])
		b = appendPadded(b[:0], nation+10, 2)
		for _, part := range []int{3, 3, 4} {
			b = append(b, '-')
			b = appendPadded(b, r.Uniform(0, pow10[part]-1), part)
		}
		w.Plain(b)
		w.Float(float64(r.Uniform(-99999, 999999))/100, 2)
		b = words(b[:0], r, 25, 100)
		if r.Uniform(1, 100) <= 5 { // the spec's 5 in 100,000 are too few for a 10,000-row table
			copy(b[r.Uniform(0, int64(len(b)-3)):], "bad")
		}
		w.Str(string(b))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

var pow10 = [...]int64{1, 10, 100, 1000, 10000}

func appendPadded(b []byte, v int64, width int) []byte {
	start := len(b)
	for i := 0; i < width; i++ {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start && v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

const alnumChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// alnum appends a random alphanumeric string of length [lo, hi].
func alnum(b []byte, r *random.Rand, lo, hi int64) []byte {
	for n := r.Uniform(lo, hi); n > 0; n-- {
		b = append(b, alnumChars[r.Uniform(0, int64(len(alnumChars)-1))])
	}
	return b
}

// words appends words of lower-case letters, [lo, hi] characters in all.
func words(b []byte, r *random.Rand, lo, hi int64) []byte {
	n := int(r.Uniform(lo, hi))
	start := len(b)
	for len(b)-start < n {
		if len(b) > start && r.Uniform(0, 6) == 0 {
			b = append(b, ' ')
			continue
		}
		b = append(b, byte('a'+r.Uniform(0, 25)))
	}
	if b[len(b)-1] == ' ' {
		b[len(b)-1] = 'x'
	}
	return b
}
