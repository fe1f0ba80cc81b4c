package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

// segment is n packets 20 ms apart of a 8 kHz stream, numbered from seq0 and timestamped
// from ts0, packet i arriving at T0 + (i0+i)·20 ms: a sender's run of numbers between
// restarts.
func segment(pt uint8, i0, n int, seq0 uint16, ts0 uint32) []arrival {
	as := make([]arrival, 0, n)
	for i := 0; i < n; i++ {
		b := rp{pt: pt, seq: seq0 + uint16(i), ts: ts0 + uint32(160*i), ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i0+i)*20*ms1)})
	}
	return as
}

// TestStreamRestartTiming: at a restart of the numbers and timestamps, or a stray packet,
// jitter and delay stay those of a perfectly regular stream (0), where a jump of the
// timestamp by hours read as hours of jitter and delay.
func TestStreamRestartTiming(t *testing.T) {
	type figures struct {
		Packets, Expected, Lost, Dups, Restarts int64
		Clock                                   int
		JitterMax, DelayMax                     float64
		Samples                                 int64
	}
	stray := rp{pt: 0, seq: 50000, ts: 3e9, ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
	tests := []struct {
		name string
		as   []arrival
		want figures
	}{
		{
			name: "restart",
			as:   append(segment(0, 0, 300, 100, 1000), segment(0, 300, 200, 30000, 4e9)...),
			want: figures{Packets: 500, Expected: 500, Restarts: 1, Clock: 8000, Samples: 500},
		},
		{
			name: "restart onto received numbers, timestamps back",
			as:   append(segment(0, 0, 300, 100, 4e9), segment(0, 300, 200, 150, 1000)...),
			want: figures{Packets: 500, Expected: 500, Restarts: 1, Clock: 8000, Samples: 500},
		},
		{
			// The stray arrives between two packets; it counts as a packet only.
			name: "stray packet",
			as: append(segment(0, 0, 300, 100, 1000),
				arrival{pathA, msg(stray, T0+150*20*ms1+5*ms1)}),
			want: figures{Packets: 301, Expected: 300, Clock: 8000, Samples: 300},
		},
		{
			// A dynamic payload type restarting 200 ms in: the clock is inferred from the
			// packets before the restart.
			name: "restart before the clock is known",
			as:   append(segment(96, 0, 10, 100, 1000), segment(96, 10, 200, 30000, 4e9)...),
			want: figures{Packets: 210, Expected: 210, Restarts: 1, Clock: 8000, Samples: 210},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, tt.as)
			st := only(t, tr).Summary(T0)
			got := figures{Packets: st.Packets, Expected: st.Expected, Lost: *st.Lost, Dups: st.Duplicates,
				Restarts: st.Restarts}
			if st.ClockRate != nil {
				got.Clock = *st.ClockRate
			}
			if st.JitterMS != nil {
				got.JitterMax = st.JitterMS.Max
			}
			if st.DelayMS != nil {
				got.DelayMax, got.Samples = st.DelayMS.Max, st.DelayMS.Samples
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestStreamOldCopy: a copy of packet 10 arriving 140 packets later steps back beyond A.1's
// MAX_MISORDER and is held; the next packet shows no restart, and it counts as before the
// probation existed: a duplicate, its bytes in the duplicates; no delay sample, since the
// copy before it was the one played (Stream.duplicateTiming).
func TestStreamOldCopy(t *testing.T) {
	as := segment(0, 0, 300, 100, 1000)
	cp := *as[10].m
	cp.FirstSeen, cp.Complete, cp.Delivered = T0+150*20*ms1+5*ms1, T0+150*20*ms1+5*ms1, T0+150*20*ms1+5*ms1
	tr := NewTracker(Config{})
	feed(t, tr, append(as, arrival{pathA, &cp}))
	s := only(t, tr)
	st := s.Summary(T0)
	w := s.Wire()
	type figures struct {
		Packets, Expected, Lost, Dups, Reordered, Samples int64
		WirePackets, DupPackets, DupBytes, MediaBytes     int64
	}
	got := figures{st.Packets, st.Expected, *st.Lost, st.Duplicates, st.Reordered, st.DelayMS.Samples,
		w.Packets, w.DuplicatePackets, w.DuplicateBytes, w.MediaPayloadBytes}
	want := figures{Packets: 301, Expected: 300, Dups: 1, Samples: 300,
		WirePackets: 300, DupPackets: 1, DupBytes: 172, MediaBytes: 300 * 160}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if st.Late == nil || st.Late.Packets != 0 {
		t.Errorf("late %+v, want none: the copy, 2.8 s after its original, was not played (it was late)", st.Late)
	}
	if sec := st.Bitrate.SeriesKbps[3]; sec != 50*160*8/1000.0 {
		t.Errorf("second 3 carries %v kbps, want 64 (the copy's payload is not media)", sec)
	}
}

// TestStreamLateLast: packet 200 arrives last, 100 packets late, beyond A.1's MAX_MISORDER,
// and is held on probation; no packet follows to settle it, so the end of the stream does,
// as the next packet would have: it fills its gap (reordered, not lost) and is timed.
func TestStreamLateLast(t *testing.T) {
	as := segment(0, 0, 300, 100, 1000)
	last := as[100]
	last.m.FirstSeen, last.m.Complete, last.m.Delivered = T0+300*20*ms1, T0+300*20*ms1, T0+300*20*ms1
	as = append(append(as[:100:100], as[101:]...), last)
	tr := NewTracker(Config{})
	feed(t, tr, as)
	st := only(t, tr).Summary(T0)
	type figures struct {
		Packets, Expected, Lost, Dups, Reordered, Samples, Late int64
		DelayMax                                                float64
	}
	got := figures{st.Packets, st.Expected, *st.Lost, st.Duplicates, st.Reordered, st.DelayMS.Samples,
		st.Late.Packets, st.DelayMS.Max}
	want := figures{Packets: 300, Expected: 300, Reordered: 1, Samples: 300, Late: 1, DelayMax: 4000}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestEarlyDuplicateJitter: packet 10 of a perfectly paced PCMU stream comes again 15 ms
// later; jitter counts the copy (RFC 3550 A.8 counts every packet received), and it is the
// stream's only jitter. The same with a header extension on every packet, whose first
// packets wait (early) for the timing decision: the copy, which arrived while they waited,
// counts the same. Before, it was left out (mean 0.06 ms where the stream without the
// extension read 0.12).
func TestEarlyDuplicateJitter(t *testing.T) {
	jitter := func(ext bool) report.Jitter {
		as := pcmu(500, 0, 1000, nil, nil)
		if ext {
			for i := range as {
				b := rp{pt: 0, seq: uint16(i), ts: 1000 + uint32(160*i), ssrc: 0xA1, extProfile: 0xBEDE,
					ext: oneByte(el{5, []byte{1}}), payload: make([]byte, 160)}.bytes()
				as[i].m = msg(b, as[i].m.Delivered)
			}
		}
		cp := *as[10].m
		cp.FirstSeen, cp.Complete, cp.Delivered = cp.Delivered+15*ms1, cp.Delivered+15*ms1, cp.Delivered+15*ms1
		tr := NewTracker(Config{})
		feed(t, tr, append(as, arrival{pathA, &cp}))
		st := only(t, tr).Summary(T0)
		if st.Duplicates != 1 || st.JitterMS == nil {
			t.Fatalf("extension %v: %d duplicates, jitter %v; want 1 and a jitter", ext, st.Duplicates, st.JitterMS)
		}
		return *st.JitterMS
	}
	plain, ext := jitter(false), jitter(true)
	if plain.Max == 0 || plain != ext {
		t.Errorf("jitter %+v, with an extension %+v: want the same, not 0", plain, ext)
	}
}

// TestOutageIsNoRestart: 500 packets of a 20 ms stream, then nothing for 70 s while the
// sender went on numbering and timestamping (3,500 packets it could not send), then 500
// more: a jump of 3,500 numbers, beyond A.1's MAX_DROPOUT, whose timestamps and arrival
// moved on with it. The 3,500 were lost (tshark says so); before, A.1's probation took the
// jump for a restart, and the stream read no loss. A jump as large whose timestamps draw
// a new base, or that comes 20 ms after the packet before, is a restart, as before.
func TestOutageIsNoRestart(t *testing.T) {
	type figures struct{ Packets, Expected, Lost, Restarts int64 }
	for _, tt := range []struct {
		name  string
		after []arrival
		want  figures
	}{
		{"outage", segment(0, 4000, 500, 4000, 160*4000), figures{1000, 4500, 3500, 0}},
		{"new timestamps", segment(0, 4000, 500, 4000, 7777777), figures{1000, 1000, 0, 1}},
		{"no time passed", segment(0, 500, 500, 4000, 160*4000), figures{1000, 1000, 0, 1}},
	} {
		tr := NewTracker(Config{})
		feed(t, tr, append(segment(0, 0, 500, 0, 0), tt.after...))
		st := only(t, tr).Summary(T0)
		if got := (figures{st.Packets, st.Expected, *st.Lost, st.Restarts}); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
