package wire

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// header is the part of RTP the tests compare, in one flat value.
type header struct {
	Padding, Extension, Marker bool
	PT                         uint8
	Seq                        uint16
	TS, SSRC                   uint32
	CSRC                       []uint32
	ExtProfile                 uint16
	ExtBody                    []byte
	HeaderLen, PayloadLen      int
	PadLen                     int
	PadUnread                  bool
}

func flat(r *RTP) header {
	h := header{Padding: r.Padding, Extension: r.Extension, Marker: r.Marker, PT: r.PayloadType,
		Seq: r.SequenceNumber, TS: r.Timestamp, SSRC: r.SSRC, ExtBody: r.ExtensionBody,
		HeaderLen: r.HeaderLen, PayloadLen: r.PayloadLen, PadLen: r.PaddingLen(),
		PadUnread: r.PaddingUnread}
	if len(r.CSRC) > 0 {
		h.CSRC = r.CSRC
	}
	if r.Extension {
		h.ExtProfile = r.ExtensionProfile
	}
	return h
}

func TestRTPUnmarshal(t *testing.T) {
	tests := []struct {
		name      string
		data      []byte
		truncated bool
		want      header
		wantErr   error
	}{
		{
			name: "minimal",
			data: []byte{
				0x80, 0xe0, 0x12, 0x34, // v=2, p=0, x=0, cc=0, m=1, pt=96, seq=0x1234
				0x00, 0x00, 0x00, 0x10, // ts=16
				0xde, 0xad, 0xbe, 0xef, // ssrc
				0x01, 0x02, // payload
			},
			want: header{Marker: true, PT: 96, Seq: 0x1234, TS: 16, SSRC: 0xdeadbeef, HeaderLen: 12, PayloadLen: 2},
		},
		{
			name: "csrc, one-byte extension and padding",
			data: []byte{
				0xb1, 0x00, 0x00, 0x01, // v=2, p=1, x=1, cc=1, pt=0, seq=1
				0x00, 0x00, 0x00, 0x00, // ts
				0x00, 0x00, 0x00, 0x01, // ssrc
				0x00, 0x00, 0x00, 0x02, // csrc
				0xbe, 0xde, 0x00, 0x01, // profile 0xBEDE, 1 word
				0x12, 0xaa, 0xbb, 0x00, // id=1 len=3: aa bb 00
				0x05,             // payload
				0x00, 0x00, 0x03, // padding, count 3
			},
			want: header{Padding: true, Extension: true, SSRC: 1, Seq: 1, CSRC: []uint32{2}, ExtProfile: 0xbede,
				ExtBody: []byte{0x12, 0xaa, 0xbb, 0x00}, HeaderLen: 24, PayloadLen: 1, PadLen: 3},
		},
		{
			name: "padding only (RTX probe)",
			data: []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4}, // p=1, pt=97, pad 4
			want: header{Padding: true, PT: 97, Seq: 7, SSRC: 3, HeaderLen: 12, PadLen: 4},
		},
		{
			name:      "truncated: padding not read",
			data:      []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 9},
			truncated: true,
			want:      header{Padding: true, PT: 97, Seq: 7, SSRC: 3, HeaderLen: 12, PayloadLen: 4},
		},
		{
			name: "two-byte extension with application bits",
			data: []byte{
				0x90, 0x00, 0x00, 0x01, // v=2, x=1, pt=0, seq=1
				0, 0, 0, 0, 0, 0, 0, 1, // ts, ssrc
				0x10, 0x05, 0x00, 0x01, // profile 0x100 with appbits 5, 1 word
				0x01, 0x00, 0xc8, 0x00, // id=1 len=0, id=200 len=0
			},
			want: header{Extension: true, Seq: 1, SSRC: 1, ExtProfile: 0x1005,
				ExtBody: []byte{0x01, 0x00, 0xc8, 0x00}, HeaderLen: 20},
		},
		{
			name: "rfc 3550 extension, another profile",
			data: []byte{
				0x90, 0x08, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1, // x=1, pt=8, seq=2
				0x12, 0x34, 0x00, 0x01, // profile 0x1234, 1 word
				0xaa, 0xbb, 0xcc, 0xdd, // opaque
				0x01, // payload
			},
			want: header{Extension: true, PT: 8, Seq: 2, SSRC: 1, ExtProfile: 0x1234,
				ExtBody: []byte{0xaa, 0xbb, 0xcc, 0xdd}, HeaderLen: 20, PayloadLen: 1},
		},
		{
			name: "element overruns the extension: the header is whole",
			data: []byte{
				0x90, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 1, // x=1, seq=3
				0xbe, 0xde, 0x00, 0x01, // one-byte profile, 1 word
				0x10, 0xaa, 0x33, 0xbb, // id=1 len=1: aa; id=3 len=4: only bb left
			},
			want: header{Extension: true, Seq: 3, SSRC: 1, ExtProfile: 0xbede,
				ExtBody: []byte{0x10, 0xaa, 0x33, 0xbb}, HeaderLen: 20},
		},
		{name: "version 1", data: []byte{0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, wantErr: ErrRTPVersion},
		{name: "short", data: []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, wantErr: ErrRTPShort},
		{name: "csrc beyond the end", data: []byte{0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, wantErr: ErrRTPHeaderLength},
		{name: "extension beyond the end", data: []byte{0x90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xde, 0, 2, 0, 0, 0, 0}, wantErr: ErrRTPHeaderLength},
		{name: "extension header cut", data: []byte{0x90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xde}, wantErr: ErrRTPHeaderLength},
		// Cut by the snap length inside the CSRC list or the extension: the fixed header's
		// fields stand, the header's length is what it says (or the least it can be), and the
		// captured bytes after it are negative (PacketOf adds what was cut).
		{name: "truncated inside the extension", data: []byte{0x90, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 1, 0xbe, 0xde, 0, 2, 0, 0, 0, 0},
			truncated: true, want: header{Extension: true, Seq: 9, TS: 5, SSRC: 1, ExtProfile: 0xbede, HeaderLen: 24, PayloadLen: -4}},
		{name: "truncated inside the csrc list", data: []byte{0x83, 0x88, 0, 9, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0},
			truncated: true, want: header{Marker: true, PT: 8, Seq: 9, TS: 5, SSRC: 1, HeaderLen: 24, PayloadLen: -6}},
		{name: "truncated inside the extension's header", data: []byte{0x90, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 1, 0xbe},
			truncated: true, want: header{Extension: true, Seq: 9, TS: 5, SSRC: 1, HeaderLen: 16, PayloadLen: -3}},
		{name: "truncated inside the fixed header", data: []byte{0x80, 0, 0, 9, 0, 0, 0, 5, 0, 0},
			truncated: true, wantErr: ErrRTPShort},
		// With SRTP the last byte is the auth tag's (RFC 3711, 3.1): a count that cannot be
		// one is unread, not a reason to reject an otherwise valid header.
		{name: "padding count 0: unread", data: []byte{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, // v=2, p=1; payload 01 00
			want: header{Padding: true, HeaderLen: 12, PayloadLen: 2, PadUnread: true}},
		{name: "padding beyond the payload: unread", data: []byte{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3}, // count 3 > 2
			want: header{Padding: true, HeaderLen: 12, PayloadLen: 2, PadUnread: true}},
		{name: "padding without payload: unread", data: []byte{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, // count 1 > 0
			want: header{Padding: true, SSRC: 1, HeaderLen: 12, PadUnread: true}},
	}
	var r RTP // reused, as on the per-packet path: every case must reset it
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Unmarshal(tt.data, tt.truncated)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, flat(&r)); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRTPMarkSRTP: on an SRTP flow a count that looks valid is unread all the same, its
// bytes payload again; a packet without the P bit keeps its lengths; both are SRTP, and the
// next Unmarshal forgets it.
func TestRTPMarkSRTP(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want header
	}{
		{name: "plausible count", data: []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0xc1, 0x5e, 0x9a, 2}, // p=1, count 2 of 4
			want: header{Padding: true, PT: 97, Seq: 7, SSRC: 3, HeaderLen: 12, PayloadLen: 4, PadUnread: true}},
		{name: "count 0", data: []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0xc1, 0x5e, 0x9a, 0},
			want: header{Padding: true, PT: 97, Seq: 7, SSRC: 3, HeaderLen: 12, PayloadLen: 4, PadUnread: true}},
		{name: "no P bit", data: []byte{0x80, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0xc1, 0x5e, 0x9a, 2},
			want: header{PT: 97, Seq: 7, SSRC: 3, HeaderLen: 12, PayloadLen: 4}},
	}
	var r RTP
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := r.Unmarshal(tt.data, false); err != nil {
				t.Fatal(err)
			}
			r.MarkSRTP()
			if diff := cmp.Diff(tt.want, flat(&r)); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if !r.SRTP {
				t.Error("SRTP not set")
			}
			if err := r.Unmarshal(tt.data, false); err != nil || r.SRTP {
				t.Errorf("Unmarshal again: SRTP %v, err %v", r.SRTP, err)
			}
		})
	}
}

func TestRTPUnmarshalAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	inputs := [][]byte{
		{0x80, 0x6F, 0x12, 0x34, 0, 0, 0x03, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF, 0xFC}, // plain
		{0x92, 0xE0, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, // x=1, cc=2, m=1, pt=96
			0, 0, 0, 3, 0, 0, 0, 4, // csrcs
			0xBE, 0xDE, 0x00, 0x02, // one-byte profile, 2 words
			0x21, 0x00, 0x01, 0x32, 0x01, 0x02, 0x03, 0x00, // id=2 len=2, id=3 len=3, pad
			0xAA},
		{0x90, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0x10, 0x00, 0x00, 0x01, 0x01, 0x00, 0xc8, 0x00}, // two-byte
		{0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},                                              // csrc beyond the end: rejected
		{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3},                                                    // bad padding: unread
	}
	var r RTP
	for _, b := range inputs { // grow the lists once
		r.Unmarshal(b, false)
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range inputs {
			r.Unmarshal(b, false)
		}
	}); n != 0 {
		t.Errorf("Unmarshal allocates %v times per run", n)
	}
}

func BenchmarkRTPUnmarshal(b *testing.B) {
	// A video packet as libwebrtc sends it: transport-cc and abs-send-time elements.
	pkt := append([]byte{0x90, 0x60, 0x00, 0x01, 0, 0, 0x0B, 0xB8, 0, 0, 0xB0, 0x01, // x=1, pt=96
		0xBE, 0xDE, 0x00, 0x02, // one-byte profile, 2 words
		0x21, 0x00, 0x01, 0x32, 0x01, 0x02, 0x03, 0x00}, // id=2 len=2, id=3 len=3, pad
		make([]byte, 1000)...)
	var r RTP
	b.ReportAllocs()
	for b.Loop() {
		r.Unmarshal(pkt, false)
	}
}
