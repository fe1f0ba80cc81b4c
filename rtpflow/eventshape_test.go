package rtpflow

import "testing"

func TestEventShape(t *testing.T) {
	ev := func(ts uint32) Packet {
		return Packet{PT: 101, PayloadLen: 4, HasOSN: true, OSN: 0x050a, Timestamp: ts}
	}
	with := func(p Packet, f func(*Packet)) Packet { f(&p); return p }
	tests := []struct {
		name string
		pkts []Packet
		want bool
	}{
		{"one event of four packets", []Packet{ev(8000), ev(8000), ev(8000), ev(8000)}, true},
		{"two events, half repeating", []Packet{ev(8000), ev(8000), ev(16000), ev(16000)}, true},
		{"one packet", []Packet{ev(8000)}, false},
		{"timestamps advancing, as audio's", []Packet{ev(160), ev(320), ev(480), ev(640)}, false},
		{"a longer payload", []Packet{ev(8000), ev(8000), with(ev(8000), func(p *Packet) { p.PayloadLen = 5 })}, false},
		{"a static type", []Packet{with(ev(8000), func(p *Packet) { p.PT = 0 }), with(ev(8000), func(p *Packet) { p.PT = 0 })}, false},
		{"the R bit set", []Packet{ev(8000), with(ev(8000), func(p *Packet) { p.OSN |= 0x40 })}, false},
		{"SRTP", []Packet{with(ev(8000), func(p *Packet) { p.Encrypted = true }), ev(8000)}, false},
	}
	for _, tt := range tests {
		var e eventShape
		for i := range tt.pkts {
			e.add(&tt.pkts[i])
		}
		if got := e.events(); got != tt.want {
			t.Errorf("%s: events %v, want %v", tt.name, got, tt.want)
		}
	}
}
