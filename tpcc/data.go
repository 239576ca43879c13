package tpcc

import (
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// Tables returns the dataset of w warehouses: DDL and generators that make
// the spec's population (clause 4.3.3.1), deterministic from seed. Tables
// keyed by warehouse are chunked by whole warehouses, so a chunk is exactly a
// key range of its leading column.
//
// s names the tables and writes their DDL; the rows are drawn the same way
// in every layout (columns are named, so their order does not matter).
func Tables(s *Schema, w int64, seed uint64, l Layout) []dataset.Table {
	l.Warehouses = w
	d := s.ddl(l)
	c := Constants(seed)
	perWare := func(name string, cols []string, key string, rowsPerWare int64, gen func(r *random.Rand, first, n int64, wr dataset.RowWriter) error) dataset.Table {
		return dataset.Table{Name: name, DDL: d[name], Columns: cols, Rows: rowsPerWare * w, ChunkRows: rowsPerWare,
			KeyColumn: key, KeyOf: func(row int64) int64 { return row/rowsPerWare + 1 }, Gen: gen}
	}
	tables := []dataset.Table{
		{Name: "item", DDL: d["item"], Columns: []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}, Rows: Items, ChunkRows: 10000,
			KeyColumn: "i_id", KeyOf: func(row int64) int64 { return row + 1 }, Gen: genItem},
		{Name: "warehouse", DDL: d["warehouse"], Columns: []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"},
			Rows: w, ChunkRows: 100, KeyColumn: "w_id", KeyOf: func(row int64) int64 { return row + 1 }, Gen: genWarehouse},
		{Name: "district", DDL: d["district"], Columns: []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"},
			Rows: w * DistPerWare, ChunkRows: 100 * DistPerWare, KeyColumn: "d_w_id", KeyOf: func(row int64) int64 { return row/DistPerWare + 1 }, Gen: genDistrict},
		perWare("customer", []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip",
			"c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"},
			"c_w_id", DistPerWare*CustPerDist, func(r *random.Rand, first, n int64, wr dataset.RowWriter) error {
				return genCustomer(r, c, first, n, wr)
			}),
		perWare("history", []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"},
			"h_w_id", DistPerWare*CustPerDist, genHistory),
		perWare("orders", []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"},
			"o_w_id", DistPerWare*OrdPerDist, func(r *random.Rand, first, n int64, wr dataset.RowWriter) error {
				return genOrders(r, seed, first, n, wr)
			}),
		perWare("new_order", []string{"no_o_id", "no_d_id", "no_w_id"}, "no_w_id", DistPerWare*(OrdPerDist-NewOrdFirst+1), genNewOrder),
		perWare("order_line", []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"},
			"ol_w_id", DistPerWare*OrdPerDist, func(r *random.Rand, first, n int64, wr dataset.RowWriter) error {
				return genOrderLines(r, seed, first, n, wr)
			}),
		perWare("stock", []string{"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05", "s_dist_06",
			"s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"}, "s_w_id", StockPerWare, genStock),
	}
	tables[7].RowsPerIndex = 10 // order lines per order, on average
	for i := range tables {
		tables[i].Name = s.Table(tables[i].Name)
	}
	if s.config {
		tables = append(tables, configTable(w, c))
	}
	return tables
}

func genItem(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 64)
	for row := first; row < first+n; row++ {
		w.Int(row + 1)
		w.Int(r.Uniform(1, 10000))
		w.Plain(aString(b[:0], r, 14, 24))
		w.Float(float64(r.Uniform(100, 10000))/100, 2)
		w.Plain(data(b[:0], r))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// address writes street 1 and 2, city, state and zip.
func address(w dataset.RowWriter, r *random.Rand, b []byte) {
	w.Plain(aString(b[:0], r, 10, 20))
	w.Plain(aString(b[:0], r, 10, 20))
	w.Plain(aString(b[:0], r, 10, 20))
	w.Plain(aString(b[:0], r, 2, 2))
	w.Plain(zip(b[:0], r))
}

func genWarehouse(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 32)
	for row := first; row < first+n; row++ {
		w.Int(row + 1)
		w.Plain(aString(b[:0], r, 6, 10))
		address(w, r, b)
		w.Float(float64(r.Uniform(0, 2000))/10000, 4)
		w.Float(300000, 2)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genDistrict(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 32)
	for row := first; row < first+n; row++ {
		w.Int(row%DistPerWare + 1)
		w.Int(row/DistPerWare + 1)
		w.Plain(aString(b[:0], r, 6, 10))
		address(w, r, b)
		w.Float(float64(r.Uniform(0, 2000))/10000, 4)
		w.Float(30000, 2)
		w.Int(OrdPerDist + 1)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genCustomer(r *random.Rand, c NURandC, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 512)
	for row := first; row < first+n; row++ {
		cid := row%CustPerDist + 1
		w.Int(cid)
		w.Int(row%(DistPerWare*CustPerDist)/CustPerDist + 1)
		w.Int(row/(DistPerWare*CustPerDist) + 1)
		w.Plain(aString(b[:0], r, 8, 16))
		w.Str("OE")
		if cid <= 1000 {
			w.Plain(LastName(b[:0], cid-1))
		} else {
			w.Plain(LastName(b[:0], NURand(r, 255, c.Last, 0, 999)))
		}
		address(w, r, b)
		w.Plain(nString(b[:0], r, 16))
		w.Str(loadTimestamp)
		if r.Uniform(1, 10) == 1 {
			w.Str("BC")
		} else {
			w.Str("GC")
		}
		w.Float(50000, 2)
		w.Float(float64(r.Uniform(0, 5000))/10000, 4)
		w.Float(-10, 2)
		w.Float(10, 2)
		w.Int(1)
		w.Int(0)
		w.Plain(aString(b[:0], r, 300, 500))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genHistory(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 32)
	for row := first; row < first+n; row++ {
		wid, did := row/(DistPerWare*CustPerDist)+1, row%(DistPerWare*CustPerDist)/CustPerDist+1
		w.Int(row%CustPerDist + 1)
		w.Int(did)
		w.Int(wid)
		w.Int(did)
		w.Int(wid)
		w.Str(loadTimestamp)
		w.Float(10, 2)
		w.Plain(aString(b[:0], r, 12, 24))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genOrders(r *random.Rand, seed uint64, first, n int64, w dataset.RowWriter) error {
	perm := make([]int32, CustPerDist)
	permFor := int64(-1)
	for row := first; row < first+n; row++ {
		wid, did, oid := row/(DistPerWare*OrdPerDist)+1, row%(DistPerWare*OrdPerDist)/OrdPerDist+1, row%OrdPerDist+1
		if k := row / OrdPerDist; k != permFor {
			customerPerm(seed, wid, did, perm)
			permFor = k
		}
		w.Int(oid)
		w.Int(did)
		w.Int(wid)
		w.Int(int64(perm[oid-1]))
		w.Str(loadTimestamp)
		if oid < NewOrdFirst {
			w.Int(r.Uniform(1, 10))
		} else {
			w.Null()
		}
		w.Int(olCount(seed, wid, did, oid))
		w.Int(1)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func genNewOrder(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	const per = OrdPerDist - NewOrdFirst + 1
	for row := first; row < first+n; row++ {
		w.Int(NewOrdFirst + row%per)
		w.Int(row%(DistPerWare*per)/per + 1)
		w.Int(row/(DistPerWare*per) + 1)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// genOrderLines: row numbers index orders; each writes its O_OL_CNT lines.
func genOrderLines(r *random.Rand, seed uint64, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 32)
	for row := first; row < first+n; row++ {
		wid, did, oid := row/(DistPerWare*OrdPerDist)+1, row%(DistPerWare*OrdPerDist)/OrdPerDist+1, row%OrdPerDist+1
		cnt := olCount(seed, wid, did, oid)
		for l := int64(1); l <= cnt; l++ {
			w.Int(oid)
			w.Int(did)
			w.Int(wid)
			w.Int(l)
			w.Int(r.Uniform(1, Items))
			w.Int(wid)
			if oid < NewOrdFirst {
				w.Str(loadTimestamp)
			} else {
				w.Null()
			}
			w.Int(5)
			if oid < NewOrdFirst {
				w.Float(0, 2)
			} else {
				w.Float(float64(r.Uniform(1, 999999))/100, 2)
			}
			w.Plain(aString(b[:0], r, 24, 24))
			if err := w.EndRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

func genStock(r *random.Rand, first, n int64, w dataset.RowWriter) error {
	b := make([]byte, 0, 64)
	for row := first; row < first+n; row++ {
		w.Int(row%StockPerWare + 1)
		w.Int(row/StockPerWare + 1)
		w.Int(r.Uniform(10, 100))
		for i := 0; i < 10; i++ {
			w.Plain(aString(b[:0], r, 24, 24))
		}
		w.Int(0)
		w.Int(0)
		w.Int(0)
		w.Plain(data(b[:0], r))
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}
