package tpcc

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/measure"
)

// MaxTpmCPerWarehouse is the ceiling with keying and think times (clause 4.2).
const MaxTpmCPerWarehouse = 12.86

// Report prints a TPC-C run.
type Report struct {
	W   io.Writer
	Run *Run
}

func ms(h *hdr.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }

// Interval prints, per transaction type, the count, TPS and latencies of the interval.
func (r *Report) Interval(iv measure.Interval) {
	s := iv.Length.Seconds()
	for t, h := range iv.Hists {
		if h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(r.W, "[%4.0fs] %-12s count %7d  tps %9.2f  p50 %8.2f  p95 %8.2f  p99 %8.2f  max %8.2f ms\n",
			iv.Elapsed.Seconds(), TxNames[t], h.TotalCount(), float64(h.TotalCount())/s, ms(h, 50), ms(h, 95), ms(h, 99), float64(h.Max())/1000)
	}
}

// Checkpoint is not used by TPC-C.
func (r *Report) Checkpoint(measure.Final) {}

// Summary is the run's headline figures.
type Summary struct {
	TpmC, TpmTotal, Efficiency float64
	Audit                      []AuditLine
}

// AuditLine is one run-time requirement (clause 5.2.5 and 2.x): the value,
// the band a correct run falls in (at this run's count, for rates), and the
// verdict (see audit.go).
type AuditLine struct {
	What    string
	Value   float64
	Lo, Hi  float64
	Pass    bool // not failed: "too few samples" passes
	Verdict string
	Unit    string
	Count   string // "k of n", for rates
}

// Summarize computes tpmC (New-Orders per minute, rollbacks included),
// tpmTotal and efficiency, and the audit.
func (r *Report) Summarize(f *measure.Final, warehouses int64) Summary {
	min := f.Elapsed.Minutes()
	var total int64
	for _, h := range f.Hists {
		total += h.TotalCount()
	}
	s := Summary{TpmC: float64(f.Hists[NewOrder].TotalCount()) / min, TpmTotal: float64(total) / min}
	s.Efficiency = s.TpmC / (MaxTpmCPerWarehouse * float64(warehouses)) * 100
	if w := r.Run.cfg.Wait; w > 0 {
		// Waits of w times the spec's: the ceiling is 1/w times its.
		s.Efficiency *= w
	}
	a := &r.Run.Audit
	pct := func(n, d int64) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) * 100 / float64(d)
	}
	rate := func(what string, k, n int64, p float64) AuditLine {
		v, lo, hi := judgeRate(k, n, p)
		return AuditLine{What: what, Value: pct(k, n), Lo: lo * 100, Hi: hi * 100, Pass: v != VerdictFail, Verdict: v, Unit: "%",
			Count: fmt.Sprintf("%d of %d", k, n)}
	}
	no := a.NewOrders.Load()
	committed := no - a.Rollbacks.Load()
	avgLines := 0.0
	if committed > 0 {
		avgLines = float64(a.Lines.Load()) / float64(committed)
	}
	// Lines per order are uniform on 5..15: mean 10, variance (11^2-1)/12 = 10.
	lv, llo, lhi := judgeMean(avgLines, committed, 10, 10)
	s.Audit = []AuditLine{
		rate("New-Order rollbacks", a.Rollbacks.Load(), no, 0.01),
		{What: "average lines per New-Order", Value: avgLines, Lo: llo, Hi: lhi, Pass: lv != VerdictFail, Verdict: lv, Count: fmt.Sprintf("%d orders", committed)},
	}
	if warehouses > 1 {
		s.Audit = append(s.Audit,
			rate("remote order lines", a.RemoteLines.Load(), a.Lines.Load(), 0.01),
			rate("remote payments", a.RemotePayments.Load(), a.Payments.Load(), 0.15))
	}
	s.Audit = append(s.Audit, rate("Payment and Order-Status by last name", a.ByName.Load(), a.ByNameOf.Load(), 0.60))
	s.Audit = append(s.Audit, responseTimes(f)...)
	// The mix is judged like the rates: by the spread its count allows at
	// the deck's share, and with the spec's weights against clause 5.2.3's
	// floors once the count can tell (a deck holds the mix exactly only
	// over whole decks, so a short run may miss a floor by a card or two).
	var cards int
	for _, c := range r.Run.cfg.Weights {
		cards += c
	}
	for t := Payment; t < numTx; t++ {
		floor := 0.0
		if r.Run.cfg.Weights == DefaultWeights {
			floor = 0.04
			if t == Payment {
				floor = 0.43
			}
		}
		k := f.Hists[t].TotalCount()
		v, lo, hi := judgeMix(k, total, float64(r.Run.cfg.Weights[t])/float64(cards), floor, r.Run.cfg.Threads, cards)
		s.Audit = append(s.Audit, AuditLine{What: "mix " + TxNames[t], Value: pct(k, total), Lo: lo * 100, Hi: hi * 100,
			Pass: v != VerdictFail, Verdict: v, Unit: "%", Count: fmt.Sprintf("%d of %d", k, total)})
	}
	return s
}

// ResponseLimits are clause 5.2.5.4's: the 90th percentile response time
// of each transaction type at most 5 s, Stock-Level's 20 s.
var ResponseLimits = [numTx]float64{NewOrder: 5, Payment: 5, OrderStatus: 5, Delivery: 5, StockLevel: 20}

// responseTimes are the audit's lines of the response-time constraints.
func responseTimes(f *measure.Final) []AuditLine {
	var out []AuditLine
	for t, h := range f.Hists {
		if t >= numTx {
			break
		}
		n := h.TotalCount()
		line := AuditLine{What: "90th percentile response " + TxNames[t], Unit: "s", Hi: ResponseLimits[t], Count: fmt.Sprintf("%d transactions", n)}
		switch {
		case n == 0:
			line.Verdict, line.Pass = VerdictTooFew, true
		default:
			line.Value = float64(h.ValueAtQuantile(90)) / 1e6
			line.Pass = line.Value <= ResponseLimits[t]
			line.Verdict = VerdictPass
			if !line.Pass {
				line.Verdict = VerdictFail
			}
		}
		out = append(out, line)
	}
	return out
}

// Passed says whether a run with keying and think times passes as a TPC-C
// run (CockroachDB's workload judges it the same way): efficiency at least
// 85% and every response-time constraint held; why names what failed.
func (s Summary) Passed() (ok bool, why string) {
	var failed []string
	if s.Efficiency < 85 {
		failed = append(failed, fmt.Sprintf("efficiency %.1f%% < 85%%", s.Efficiency))
	}
	for _, a := range s.Audit {
		if a.Unit == "s" && !a.Pass {
			failed = append(failed, fmt.Sprintf("%s %.2f s > %.0f s", a.What, a.Value, a.Hi))
		}
	}
	if len(failed) > 0 {
		return false, strings.Join(failed, ", ")
	}
	return true, fmt.Sprintf("efficiency %.1f%% >= 85%%, every 90th percentile response time within its limit", s.Efficiency)
}

// NotAtSpecWaits marks a run whose keying and think times are not the
// spec's: its efficiency is against the ceiling of those waits, and its
// PASS is not a TPC-C run's.
func NotAtSpecWaits(w float64) string {
	return "not at the spec's waits (x" + strconv.FormatFloat(w, 'g', -1, 64) + ")"
}

// describeWait is --wait for the header.
func describeWait(w float64) string {
	switch w {
	case 0:
		return "off"
	case 1:
		return "on (the spec's)"
	}
	return "x" + strconv.FormatFloat(w, 'g', -1, 64) + " (not the spec's)"
}

// WaitFlag is --wait: on (the spec's keying and think times, 1), off (0),
// or their multiplier.
type WaitFlag struct{ P *float64 }

func (f WaitFlag) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "yes":
		*f.P = 1
		return nil
	case "off", "false", "no":
		*f.P = 0
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not on, off or a multiplier of the keying and think times (0.05: a twentieth of them)", s)
	}
	*f.P = v
	return nil
}

func (f WaitFlag) String() string {
	if f.P == nil {
		return "off"
	}
	return describeFlag(*f.P)
}

func describeFlag(w float64) string {
	switch w {
	case 0:
		return "off"
	case 1:
		return "on"
	}
	return strconv.FormatFloat(w, 'g', -1, 64)
}

func (f WaitFlag) Type() string { return "on|off|multiplier" }

// EfficiencyWithoutWait is why a run without --wait has no efficiency: its
// threads run back to back, so tpmC is not bounded by 12.86 per warehouse.
const EfficiencyWithoutWait = "no keying or think times: it applies with --wait"

// Final prints per-type figures, tpmC, tpmTotal, efficiency and the audit.
func (r *Report) Final(f *measure.Final, warehouses int64) Summary {
	w := r.W
	fmt.Fprintf(w, "\n%-12s %9s %7s %7s %9s %9s %9s %9s %9s %9s %9s\n", "transaction", "count", "errors", "retries", "avg ms", "p50", "p90", "p95", "p99", "p99.9", "max")
	for t, h := range f.Hists {
		fmt.Fprintf(w, "%-12s %9d %7d %7d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", TxNames[t], h.TotalCount(),
			r.Run.Audit.Errors[t].Load(), r.Run.Audit.Retries[t].Load(), h.Mean()/1000, ms(h, 50), ms(h, 90), ms(h, 95), ms(h, 99), ms(h, 99.9), float64(h.Max())/1000)
	}
	s := r.Summarize(f, warehouses)
	eff := fmt.Sprintf("%.1f%%", s.Efficiency)
	if r.Run.cfg.Wait == 0 {
		eff = "n/a (" + EfficiencyWithoutWait + ")"
	} else if r.Run.cfg.Wait != 1 {
		eff += " of the ceiling at these waits, " + NotAtSpecWaits(r.Run.cfg.Wait)
	}
	fmt.Fprintf(w, "\ntpmC: %.1f, tpmTotal: %.1f, efficiency: %s (%d warehouses, %.1f s measured, reconnects %d)\n",
		s.TpmC, s.TpmTotal, eff, warehouses, f.Elapsed.Seconds(), f.Counts.Get(measure.Reconnects))
	if len(f.ErrorCodes) > 0 {
		fmt.Fprintf(w, "errors by code: %s\n", errorCodes(f.ErrorCodes))
	}
	fmt.Fprintf(w, "\nRun-time audit:\n")
	for _, a := range s.Audit {
		count := ""
		if a.Count != "" {
			count = " (" + a.Count + ")"
		}
		fmt.Fprintf(w, "  %-40s %8.2f%-1s  [%.2f, %.2f]  %s%s\n", a.What, a.Value, a.Unit, a.Lo, a.Hi, a.Verdict, count)
	}
	fmt.Fprintf(w, "  (rates: the band a correct client falls in 9,999 runs in 10,000 at these counts; \"too few samples\": a rate 20%% off would still fit)\n")
	if r.Run.cfg.Wait > 0 {
		ok, why := s.Passed()
		verdict := "PASS"
		if !ok {
			verdict = "FAIL"
		}
		if r.Run.cfg.Wait != 1 {
			verdict += ", " + NotAtSpecWaits(r.Run.cfg.Wait)
		}
		fmt.Fprintf(w, "TPC-C run: %s (%s)\n", verdict, why)
	}
	return s
}

// errorCodes words the error breakdown: each code and outcome with its
// count and the transactions that met it.
func errorCodes(ec []measure.ErrorCount) string {
	type key struct{ code, outcome string }
	var order []key
	total := map[key]int64{}
	byTx := map[key][]string{}
	for _, e := range ec {
		k := key{e.Code, e.Outcome}
		if _, ok := total[k]; !ok {
			order = append(order, k)
		}
		total[k] += e.Count
		name := "other"
		if e.Op >= 0 && e.Op < len(TxNames) {
			name = TxNames[e.Op]
		}
		byTx[k] = append(byTx[k], fmt.Sprintf("%s %d", name, e.Count))
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].code != order[j].code {
			return order[i].code < order[j].code
		}
		return order[i].outcome < order[j].outcome
	})
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s %s %d (%s)", k.code, k.outcome, total[k], strings.Join(byTx[k], ", "))
	}
	return strings.Join(parts, "; ")
}
