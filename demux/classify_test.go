package demux

import (
	"bytes"
	"testing"
)

// cookie is the STUN magic cookie, 0x2112A442.
var cookie = []byte{0x21, 0x12, 0xA4, 0x42}

// tid is a 12-byte transaction ID; tid16 a 16-byte RFC 3489 one.
var (
	tid   = bytes.Repeat([]byte{0xAB}, 12)
	tid16 = bytes.Repeat([]byte{0xAB}, 16)
)

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestClassify(t *testing.T) {
	tests := []struct {
		name       string
		data       []byte
		want       Class
		truncated  Class // what classifyTruncated says, when truncatedC
		truncatedC bool  // classifyTruncated differs from Classify
	}{
		{name: "empty", data: nil, want: ClassOther},
		{name: "unassigned 4-15", data: cat([]byte{0x04, 0x01, 0x00, 0x00}, cookie, tid), want: ClassOther},

		{name: "stun binding request, no attributes",
			data: cat([]byte{0x00, 0x01, 0x00, 0x00}, cookie, tid), // type=binding request, len=0
			want: ClassSTUN},
		{name: "stun with one attribute",
			data: cat([]byte{0x01, 0x01, 0x00, 0x08}, cookie, tid, // binding success, len=8
				[]byte{0x00, 0x24, 0x00, 0x04, 0x6E, 0x7F, 0x1E, 0xFF}), // PRIORITY
			want: ClassSTUN},
		{name: "stun length not a multiple of 4",
			data: cat([]byte{0x00, 0x01, 0x00, 0x02}, cookie, tid, []byte{0, 0}), want: ClassOther},
		{name: "stun length beyond the buffer",
			data: cat([]byte{0x00, 0x01, 0x00, 0x08}, cookie, tid, []byte{0x00, 0x24}), // 2 of 8 bytes
			want: ClassOther, truncated: ClassSTUN, truncatedC: true},
		{name: "stun header cut", data: cat([]byte{0x00, 0x01, 0x00, 0x00}, cookie, tid[:11]), want: ClassOther},
		{name: "rfc 3489 binding request, exact fit",
			data: cat([]byte{0x00, 0x01, 0x00, 0x00}, tid16), // len=0, 128-bit transaction ID
			want: ClassSTUN},
		{name: "rfc 3489 binding response with MAPPED-ADDRESS",
			data: cat([]byte{0x01, 0x01, 0x00, 0x0C}, tid16, // len=12
				[]byte{0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x13, 0x88, 10, 0, 0, 1}), // MAPPED-ADDRESS
			want: ClassSTUN},
		{name: "rfc 3489 with trailing bytes",
			data: cat([]byte{0x00, 0x01, 0x00, 0x00}, tid16, []byte{0, 0, 0, 0}), want: ClassOther},
		{name: "rfc 3489 attributes overrun the length",
			data: cat([]byte{0x01, 0x01, 0x00, 0x08}, tid16, // len=8
				[]byte{0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x13, 0x88}), // value says 8, has 4
			want: ClassOther},

		{name: "zrtp hello",
			data: cat([]byte{0x10, 0x00, 0x00, 0x01}, []byte("ZRTP"), // seq=1, magic
				[]byte{1, 2, 3, 4}, []byte{0x50, 0x5A, 0x00, 0x01}, []byte{0, 0, 0, 0}), // ssrc, preamble, crc
			want: ClassZRTP},
		{name: "zrtp without magic", data: cat([]byte{0x10, 0x00, 0x00, 0x01}, []byte("ZRTQ"), make([]byte, 12)), want: ClassOther},

		{name: "dtls 1.2 handshake",
			data: []byte{0x16, 0xFE, 0xFD, // handshake, DTLS 1.2
				0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // epoch 0, seq 0
				0x00, 0x01, 0x01}, // len=1
			want: ClassDTLS},
		{name: "dtls 1.0 change cipher spec",
			data: []byte{0x14, 0xFE, 0xFF, 0, 0, 0, 0, 0, 0, 0, 5, 0x00, 0x01, 0x01}, want: ClassDTLS},
		{name: "dtls bad version (TLS 1.2)",
			data: []byte{0x16, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0x01}, want: ClassOther},
		{name: "dtls length beyond buffer",
			data: []byte{0x17, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0x00, 0x20, 0xAA},
			want: ClassOther, truncated: ClassDTLS, truncatedC: true},
		{name: "dtls 1.3 unified header, 16-bit seq, length",
			data: []byte{0x2C, 0x00, 0x07, 0x00, 0x02, 0xAA, 0xBB}, // 001 C=0 S=1 L=1 EE=00, seq=7, len=2
			want: ClassDTLS},
		{name: "dtls 1.3 unified header, connection ID: not told from noise",
			data: []byte{0x3C, 0x00, 0x07, 0x00, 0x02, 0xAA, 0xBB}, want: ClassOther},
		{name: "dtls 1.3 unified header without length: not told from noise",
			data: []byte{0x28, 0x00, 0x07, 0xAA, 0xBB}, want: ClassOther},
		{name: "dns query whose id starts with 0x2c",
			data: []byte{0x2C, 0x1A, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 'w', 'w', 'w', 0x00, 0x00, 0x01, 0x00, 0x01},
			want: ClassOther},
		{name: "dtls 1.3 unified header, length beyond buffer",
			data: []byte{0x2C, 0x00, 0x07, 0x00, 0x09, 0xAA}, want: ClassOther, truncated: ClassDTLS, truncatedC: true},

		{name: "channeldata",
			data: []byte{0x40, 0x00, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, // channel 0x4000, len=4
			want: ClassChannelData},
		{name: "channeldata padded",
			data: []byte{0x4F, 0xFF, 0x00, 0x01, 0xAA, 0x00, 0x00, 0x00}, // channel 0x4FFF, len=1, 3 padding
			want: ClassChannelData},
		{name: "channeldata too much after the data",
			data: []byte{0x40, 0x01, 0x00, 0x01, 0xAA, 0x00, 0x00, 0x00, 0x00}, want: ClassOther},
		{name: "channeldata length beyond buffer",
			data: []byte{0x40, 0x01, 0x00, 0x08, 0xAA, 0xBB}, want: ClassOther, truncated: ClassChannelData, truncatedC: true},

		{name: "quic short header",
			data: cat([]byte{0x5A}, make([]byte, 20)), want: ClassQUIC},
		{name: "quic short header too short", data: cat([]byte{0x5A}, make([]byte, 19)), want: ClassOther,
			truncated: ClassQUIC, truncatedC: true},
		{name: "quic long header initial",
			data: cat([]byte{0xC3, 0x00, 0x00, 0x00, 0x01, // initial, version 1
				0x04, 1, 2, 3, 4, // DCID length 4
				0x00}, make([]byte, 20)), // SCID length 0
			want: ClassQUIC},
		{name: "quic long header DCID beyond buffer",
			data: []byte{0xC3, 0x00, 0x00, 0x00, 0x01, 0x14, 1, 2}, want: ClassOther, truncated: ClassQUIC, truncatedC: true},

		{name: "rtp",
			data: []byte{0x80, 0x6F, 0x12, 0x34, // v=2, p=0, x=0, cc=0, m=0, pt=111, seq
				0, 0, 0x03, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF, // ts, ssrc
				0xFC}, // payload
			want: ClassRTP},
		{name: "rtp with csrc and extension",
			data: []byte{0x91, 0xE0, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, // v=2, x=1, cc=1, m=1, pt=96
				0, 0, 0, 3, // csrc
				0xBE, 0xDE, 0x00, 0x01, // one-byte extension profile, 1 word
				0x10, 0xAA, 0x00, 0x00}, // id=1 len=1
			want: ClassRTP},
		{name: "rtp csrc beyond buffer",
			data: []byte{0x82, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3}, // cc=2, one csrc
			want: ClassOther, truncated: ClassRTP, truncatedC: true},
		{name: "rtp extension beyond buffer",
			data: []byte{0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xBE, 0xDE, 0x00, 0x04, 0x10, 0xAA},
			want: ClassOther, truncated: ClassRTP, truncatedC: true},
		{name: "rtp padding",
			data: []byte{0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0x00, 0x00, 0x03}, // p=1, 3 padding
			want: ClassRTP},
		// SRTP: the last byte is the auth tag's (RFC 3711, 3.1), so a count that cannot be
		// one does not make an otherwise valid header other.
		{name: "rtp padding count zero",
			data: []byte{0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0x00},
			want: ClassRTP, truncated: ClassRTP},
		{name: "rtp padding beyond payload",
			data: []byte{0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0x09},
			want: ClassRTP, truncated: ClassRTP},
		{name: "rtp header cut", data: []byte{0x80, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0}, want: ClassOther,
			truncated: ClassRTP, truncatedC: true}, // the snap length cut it: rtp by its first byte

		{name: "rtcp receiver report",
			data: []byte{0x80, 0xC9, 0x00, 0x01, 0xDE, 0xAD, 0xBE, 0xEF}, // v=2, rc=0, RR, len=1
			want: ClassRTCP},
		{name: "rtcp sender report with srtcp trailer",
			data: cat([]byte{0x80, 0xC8, 0x00, 0x06}, make([]byte, 24), []byte{0x80, 0, 0, 1}, make([]byte, 10)),
			want: ClassRTCP},
		{name: "rtcp length beyond buffer",
			data: []byte{0x81, 0xC9, 0x00, 0x07, 0xDE, 0xAD, 0xBE, 0xEF},
			want: ClassOther, truncated: ClassRTCP, truncatedC: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.data); got != tt.want {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
			want := tt.want
			if tt.truncatedC {
				want = tt.truncated
			}
			if got := classifyTruncated(tt.data); got != want {
				t.Errorf("classifyTruncated = %v, want %v", got, want)
			}
		})
	}
}

func TestClassString(t *testing.T) {
	want := map[Class]string{
		ClassSTUN: "stun", ClassZRTP: "zrtp", ClassDTLS: "dtls", ClassChannelData: "channeldata",
		ClassQUIC: "quic", ClassRTP: "rtp", ClassRTCP: "rtcp", ClassOther: "other", Class(200): "other",
	}
	for c, s := range want {
		if c.String() != s {
			t.Errorf("%d.String() = %q, want %q", c, c.String(), s)
		}
	}
}

func TestClassifyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	inputs := [][]byte{
		cat([]byte{0x00, 0x01, 0x00, 0x00}, cookie, tid),
		{0x40, 0x00, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01},
		{0x80, 0x6F, 0x12, 0x34, 0, 0, 0x03, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF, 0xFC},
		{0x80, 0xC9, 0x00, 0x01, 0xDE, 0xAD, 0xBE, 0xEF},
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range inputs {
			Classify(b)
		}
	}); n != 0 {
		t.Errorf("Classify allocates %v times per run", n)
	}
}

func TestClassifierRTP(t *testing.T) {
	rtp := []byte{0x90, 0xE0, 0x00, 0x07, 0, 0, 0, 1, 0, 0, 0, 2, // v=2, x=1, m=1, pt=96, seq=7, ts=1, ssrc=2
		0xBE, 0xDE, 0x00, 0x01, // one-byte extension profile, 1 word
		0x10, 0xAA, 0x00, 0x00, // id=1 len=1
		0x01, 0x02, 0x03} // payload
	extCut := rtp[:14] // the snap length cut the extension header
	rtcp := []byte{0x80, 0xC9, 0x00, 0x01, 0xDE, 0xAD, 0xBE, 0xEF}
	stun := cat([]byte{0x00, 0x01, 0x00, 0x00}, cookie, tid)
	type want struct {
		class        Class
		header       bool   // RTP() is not nil
		seq          uint16 // of the header
		hdrLen, plen int
	}
	tests := []struct {
		name      string
		data      []byte
		truncated bool
		decode    bool // DecodeRTP after Classify, as for --decode-as rtp
		want      want
	}{
		{name: "rtp: the header travels", data: rtp, want: want{ClassRTP, true, 7, 20, 3}},
		{name: "truncated rtp cut in its extension: its fixed header read", data: extCut, truncated: true,
			want: want{ClassRTP, true, 7, 16, -2}},
		{name: "truncated rtp cut in its fixed header: rtp without a header", data: rtp[:9], truncated: true,
			want: want{class: ClassRTP}},
		{name: "rtp cut in its header, not truncated: other", data: extCut, want: want{class: ClassOther}},
		{name: "stun: no header", data: stun, want: want{class: ClassSTUN}},
		{name: "rtcp: no header", data: rtcp, want: want{class: ClassRTCP}},
		{name: "rtcp decoded as rtp (forced)", data: rtcp, decode: true,
			want: want{class: ClassRTCP, header: false}},
		{name: "rtcp with room for an rtp header decoded as rtp (forced)",
			data: cat(rtcp, []byte{0, 0, 0, 1}), decode: true, want: want{ClassRTCP, true, 1, 12, 0}},
	}
	var c Classifier
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Classify(rtp, false) // a header from an earlier message must not leak into this one
			var got want
			got.class = c.Classify(tt.data, tt.truncated)
			if tt.decode {
				c.DecodeRTP(tt.data, tt.truncated)
			}
			if h := c.RTP(); h != nil {
				got.header, got.seq, got.hdrLen, got.plen = true, h.SequenceNumber, h.HeaderLen, h.PayloadLen
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClassifierAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	inputs := [][]byte{
		{0x92, 0xE0, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, // v=2, x=1, cc=2, m=1, pt=96
			0, 0, 0, 3, 0, 0, 0, 4, // csrcs
			0xBE, 0xDE, 0x00, 0x02, // one-byte extension profile, 2 words
			0x21, 0x00, 0x01, 0x32, 0x01, 0x02, 0x03, 0x00, // id=2 len=2, id=3 len=3, padding
			0xAA}, // payload
		{0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xBE, 0xDE, 0x00, 0x04, 0x10, 0xAA}, // extension cut
		{0x80, 0xC9, 0x00, 0x01, 0xDE, 0xAD, 0xBE, 0xEF},
	}
	var c Classifier
	for _, b := range inputs { // the header's lists grow once
		c.Classify(b, false)
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range inputs {
			c.Classify(b, false)
			c.Classify(b, true)
		}
	}); n != 0 {
		t.Errorf("Classifier.Classify allocates %v times per run", n)
	}
}

func BenchmarkClassify(b *testing.B) {
	rtp := []byte{0x80, 0x6F, 0x12, 0x34, 0, 0, 0x03, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF, 0xFC}
	b.ReportAllocs()
	for b.Loop() {
		Classify(rtp)
	}
}

// classifyTruncated is Classify for a message the capture's snap length cut short.
func classifyTruncated(b []byte) Class {
	var c Classifier
	return c.Classify(b, true)
}
