package tpcc

import "math"

// The run-time audit judges each rate the spec fixes in expectation (1%
// rollbacks, 1% remote order lines, 15% remote payments, 60% by last name,
// 10 lines per order) by the spread its count allows, not by a fixed band:
// 0.86% rollbacks in 1,272 New-Orders is what a correct client shows one run
// in four. A rate fails only when a correct client would show it less than
// once in 10,000 runs, and passes only when the count is large enough that a
// rate 20% off would have failed; in between the audit says so.

// auditZ is the two-sided normal quantile of the 0.01% a correct run is
// allowed to fail: z(1-0.0001/2).
const auditZ = 3.89

// Verdicts of an audit line.
const (
	VerdictPass   = "PASS"
	VerdictFail   = "FAIL"
	VerdictTooFew = "too few samples"
)

// tolerance is the relative error a passing verdict rules out.
const tolerance = 0.2

// judgeRate judges k successes in n trials against the expected rate p:
// the band [lo, hi] a correct run falls in at this n, and the verdict.
func judgeRate(k, n int64, p float64) (verdict string, lo, hi float64) {
	if n == 0 {
		return VerdictTooFew, 0, 1
	}
	sd := math.Sqrt(p * (1 - p) / float64(n))
	verdict, lo, hi = judge(float64(k)/float64(n), p, sd)
	// The normal band is too narrow where a count is small (3 Order-Status
	// of 5 transactions): there the exact binomial tail decides a FAIL.
	if verdict == VerdictFail && n <= exactLimit && 2*binomialTail(k, n, p) >= auditAlpha {
		verdict = VerdictTooFew
	}
	return verdict, lo, hi
}

// auditAlpha is the two-sided chance of a FAIL for a correct client (auditZ's).
const auditAlpha = 1e-4

// exactLimit is the count up to which a FAIL is checked with the exact tail.
const exactLimit = 100000

// binomialTail is the chance of a count at least as far from n*p as k, on
// k's side, for n trials at rate p.
func binomialTail(k, n int64, p float64) float64 {
	logPMF := func(i int64) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(i + 1))
		c, _ := math.Lgamma(float64(n - i + 1))
		return a - b - c + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p)
	}
	from, to := k, n
	if float64(k) < float64(n)*p {
		from, to = 0, k
	}
	sum := 0.0
	for i := from; i <= to; i++ {
		sum += math.Exp(logPMF(i))
	}
	return sum
}

// judgeMean judges the mean of n samples with expected mean mu and
// per-sample variance v.
func judgeMean(mean float64, n int64, mu, v float64) (verdict string, lo, hi float64) {
	if n == 0 {
		return VerdictTooFew, 0, 2 * mu
	}
	return judge(mean, mu, math.Sqrt(v/float64(n)))
}

func judge(x, mu, sd float64) (string, float64, float64) {
	lo, hi := max(0, mu-auditZ*sd), mu+auditZ*sd
	switch {
	case x < lo || x > hi:
		return VerdictFail, lo, hi
	case auditZ*sd > tolerance*mu:
		return VerdictTooFew, lo, hi
	}
	return VerdictPass, lo, hi
}

// mixSlack is how far below a floor of clause 5.2.3 a judged mix may be at
// least: half a card in a hundred.
const mixSlack = 0.005

// deckSlack is how many cards of a share p a mix of decks of the given
// size may lack, decks of them unfinished (one a terminal): whole decks
// hold their shares exactly, and each unfinished one has drawn a part of
// its shuffled cards, whose count of the type spreads as a hypergeometric
// draw, widest at half the deck (variance cards^2/(4(cards-1)) p(1-p)). A
// correct client lacks more 1 run in 10,000 (auditZ).
func deckSlack(decks, cards int, p float64) float64 {
	if cards < 2 {
		return 0
	}
	c := float64(cards)
	return auditZ * math.Sqrt(float64(decks)*c*c/(4*(c-1))*p*(1-p))
}

// judgeMix judges k transactions of a type in n against its share p of a
// deck of the given cards, as judgeRate does, and once the count can tell
// also against the spec's floor (0: none), allowing what decks unfinished
// decks (one a terminal) may lack.
func judgeMix(k, n int64, p, floor float64, decks, cards int) (verdict string, lo, hi float64) {
	verdict, lo, hi = judgeRate(k, n, p)
	if verdict == VerdictTooFew || floor == 0 {
		return verdict, lo, hi
	}
	lo = max(lo, floor-max(mixSlack, deckSlack(decks, cards, p)/float64(n)))
	if float64(k)/float64(n) < lo {
		verdict = VerdictFail
	}
	return verdict, lo, hi
}
