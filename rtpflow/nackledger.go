package rtpflow

import "time"

// nackLedger holds, for one media path, the retransmissions its receiver asked for by
// NACK (RFC 4585 6.2.1) and no RTX packet has answered yet: it tells the repairs of an RTX
// stream whose original sequence numbers are encrypted (SRTP, matched by timestamps,
// rtxmatcher.go) from its probes.
//
// Each NACK gives credits: the packets it names where its FCI is readable, else (SRTCP,
// whose FCI is encrypted, RFC 3711 3.4) its number of FCI entries, from the length in its
// clear header, since each names at least one packet (its PID; the bitmask may add more,
// which is then not seen, so repairs are a lower bound on a bursty loss). A credit lasts
// nackCreditLife: longer than the round trip from a receiver-side capture (NACK out, RTX
// back), and than libwebrtc's pacing delay at a sender-side one. A payload-bearing RTX
// packet that takes a credit is a repair; one that finds none is a probe.
type nackLedger struct {
	at   [nackLedgerLen]int64
	n    [nackLedgerLen]int32
	head int // oldest entry
	len  int
}

const (
	nackLedgerLen  = 32
	nackCreditLife = int64(time.Second)
)

// add records a NACK seen at at asking for k packets; the oldest entry gives way when full.
func (l *nackLedger) add(at int64, k int32) {
	if k <= 0 {
		return
	}
	if l.len == nackLedgerLen {
		l.head = (l.head + 1) % nackLedgerLen
		l.len--
	}
	i := (l.head + l.len) % nackLedgerLen
	l.at[i], l.n[i] = at, k
	l.len++
}

// take consumes one credit valid at now, oldest first; false when there is none.
func (l *nackLedger) take(now int64) bool {
	for l.len > 0 && (l.at[l.head] < now-nackCreditLife || l.n[l.head] == 0) {
		l.head = (l.head + 1) % nackLedgerLen
		l.len--
	}
	if l.len == 0 || l.at[l.head] > now {
		return false
	}
	l.n[l.head]--
	return true
}

// nackLedgerOf returns the ledger of media path p, creating it when create (bounded by
// MaxStreams paths); nil when there is none.
func (t *Tracker) nackLedgerOf(p Path, create bool) *nackLedger {
	l := t.nacks[p]
	if l == nil && create && len(t.nacks) < t.cfg.MaxStreams {
		if t.nacks == nil {
			t.nacks = make(map[Path]*nackLedger)
		}
		l = &nackLedger{}
		t.nacks[p] = l
	}
	return l
}
