package dbgen

// The random streams of TPC-H's generator (the specification's clause
// 4.2.2 and TPC's dbgen): a Lehmer generator, x' = 16807 x mod 2^31-1,
// one stream per column, each starting from its own seed. Every row of a
// table takes a fixed number of values from each of its streams (the
// stream's boundary): a row that uses fewer skips the rest, so row n's
// values start at a known place and any row can be made without the rows
// before it.

const (
	multiplier = 16807
	modulus    = 2147483647
	dM         = 2147483647.0
	maxLong    = 0x7FFFFFFF
)

// stream is one column's random stream.
type stream struct {
	seed     int64 // the stream's seed at row 1
	boundary int64 // values a row takes
	value    int64
	usage    int64
}

// streams are the 48 streams, by number.
type streams [48]stream

// The stream numbers, as dbgen numbers them.
const (
	pMfgSD = iota
	pBrndSD
	pTypeSD
	pSizeSD
	pCntrSD
	textSD // the text pool's
	pCmntSD
	psQtySD
	psScstSD
	psCmntSD
	oSuppSD
	oClrkSD
	oCmntSD
	oOdateSD
	lQtySD
	lDcntSD
	lTaxSD
	lShipSD
	lSmodeSD
	lPkeySD
	lSkeySD
	lSdteSD
	lCdteSD
	lRdteSD
	lRflgSD
	lCmntSD
	cAddrSD
	cNtrgSD
	cPhneSD
	cAbalSD
	cMsegSD
	cCmntSD
	sAddrSD
	sNtrgSD
	sPhneSD
	sAbalSD
	sCmntSD
	pNameSD
	oPrioSD
	hvarSD
	oCkeySD
	nCmntSD
	rCmntSD
	oLcntSD
	bbbJnkSD
	bbbTypeSD
	bbbCmntSD
	bbbOffsetSD
)

// seeds are each stream's seed and boundary (values per row).
var seeds = [48][2]int64{
	{1, 1}, {46831694, 1}, {1841581359, 1}, {1193163244, 1}, {727633698, 1},
	{933588178, 1}, {804159733, 2},
	{1671059989, suppPerPart}, {1051288424, suppPerPart}, {1961692154, suppPerPart * 2},
	{1227283347, 1}, {1171034773, 1}, {276090261, 2}, {1066728069, 1},
	{209208115, lcntMax}, {554590007, lcntMax}, {721958466, lcntMax}, {1371272478, lcntMax},
	{675466456, lcntMax}, {1808217256, lcntMax}, {2095021727, lcntMax}, {1769349045, lcntMax},
	{904914315, lcntMax}, {373135028, lcntMax}, {717419739, lcntMax}, {1095462486, lcntMax * 2},
	{881155353, 9}, {1489529863, 1}, {1521138112, 3}, {298370230, 1}, {1140279430, 1}, {1335826707, 2},
	{706178559, 9}, {110356601, 1}, {884434366, 3}, {962338209, 1}, {1341315363, 2},
	{709314158, 92}, {591449447, 1}, {431918286, 1}, {851767375, 1}, {606179079, 2}, {1500869201, 2},
	{1434868289, 1}, {263032577, 1}, {753643799, 1}, {202794285, 1}, {715851524, 1},
}

// skip returns x advanced by n values: 16807^n x mod 2^31-1.
func skip(x, n int64) int64 {
	mult := int64(multiplier)
	for n > 0 {
		if n%2 != 0 {
			x = mult * x % modulus
		}
		n /= 2
		mult = mult * mult % modulus
	}
	return x
}

// seek places the streams ids at the start of row (1-based).
func (s *streams) seek(row int64, ids []int) {
	for _, i := range ids {
		st := &s[i]
		st.seed, st.boundary = seeds[i][0], seeds[i][1]
		st.value = skip(st.seed, (row-1)*st.boundary)
		st.usage = 0
	}
}

// next moves the streams ids to the start of the next row: what a row did
// not take of a stream's boundary is skipped.
func (s *streams) next(ids []int) {
	for _, i := range ids {
		st := &s[i]
		if st.usage < st.boundary {
			st.value = skip(st.value, st.boundary-st.usage)
		}
		st.usage = 0
	}
}

// random returns a value uniform in [lo, hi] from stream i, as dbgen's
// UnifInt: the range of [0, 2^31-1] wraps to -2^31 as dbgen's 32-bit
// arithmetic does, which its random strings depend on.
func (s *streams) random(lo, hi int64, i int) int64 {
	st := &s[i]
	st.usage++
	var r float64
	if hi == maxLong && lo == 0 {
		r = float64(int32(hi) - int32(lo) + 1)
	} else {
		r = float64(hi - lo + 1)
	}
	st.value = st.value * multiplier % modulus
	return lo + int64(float64(st.value)/dM*r)
}
