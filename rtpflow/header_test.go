package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderUnmarshal(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		snapped bool
		want    header
		ok      bool
	}{
		{
			name: "minimal",
			data: []byte{
				0x80, 0xe0, 0x12, 0x34, // v=2, p=0, x=0, cc=0, m=1, pt=96, seq=0x1234
				0x00, 0x00, 0x00, 0x10, // ts=16
				0xde, 0xad, 0xbe, 0xef, // ssrc
				0x01, 0x02, // payload
			},
			want: header{marker: true, pt: 96, seq: 0x1234, ts: 16, ssrc: 0xdeadbeef, headerLen: 12, payloadLen: 2},
			ok:   true,
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
			want: header{padding: true, extension: true, ssrc: 1, seq: 1, extProfile: 0xbede,
				extBody: []byte{0x12, 0xaa, 0xbb, 0x00}, headerLen: 24, payloadLen: 1, padLen: 3},
			ok: true,
		},
		{
			name: "padding only (RTX probe)",
			data: []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4}, // p=1, pt=97, pad 4
			want: header{padding: true, pt: 97, seq: 7, ssrc: 3, headerLen: 12, padLen: 4},
			ok:   true,
		},
		{
			name:    "snapped: padding not interpreted",
			data:    []byte{0xa0, 0x61, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 9},
			snapped: true,
			want:    header{padding: true, pt: 97, seq: 7, ssrc: 3, headerLen: 12, payloadLen: 4},
			ok:      true,
		},
		{name: "version 1", data: []byte{0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{name: "short", data: []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{name: "csrc beyond the end", data: []byte{0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{name: "extension beyond the end", data: []byte{0x90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xde, 0, 2, 0, 0, 0, 0}},
		{name: "padding count 0", data: []byte{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}},
		{name: "padding beyond the payload", data: []byte{0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h header
			ok := h.unmarshal(tt.data, tt.snapped)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, h, cmp.AllowUnexported(header{})); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtIter(t *testing.T) {
	type elem struct {
		ID   uint8
		Data []byte
	}
	tests := []struct {
		name    string
		profile uint16
		body    []byte
		want    []elem
	}{
		{"one-byte with padding", profileOneByte,
			[]byte{0x10, 0xaa, 0x00, 0x21, 0x01, 0x02, 0x00, 0x00}, // id1 len1, pad, id2 len2, pad
			[]elem{{1, []byte{0xaa}}, {2, []byte{0x01, 0x02}}}},
		{"one-byte stop at id 15", profileOneByte, []byte{0x10, 0xaa, 0xf0, 0x10, 0xbb}, []elem{{1, []byte{0xaa}}}},
		{"one-byte truncated", profileOneByte, []byte{0x13, 0xaa}, nil},
		{"two-byte with empty element", 0x1005,
			[]byte{0x01, 0x00, 0xc8, 0x02, 0x01, 0x02, 0x00, 0x00}, // id1 len0, id200 len2, pad
			[]elem{{1, []byte{}}, {200, []byte{0x01, 0x02}}}},
		{"two-byte truncated", profileTwoByte, []byte{0x01, 0x05, 0x00}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, ok := newExtIter(tt.profile, tt.body)
			if !ok {
				t.Fatal("profile not recognised")
			}
			var got []elem
			for {
				id, data, ok := it.next()
				if !ok {
					break
				}
				got = append(got, elem{id, data})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("elements (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := newExtIter(0x1234, nil); ok {
		t.Error("unknown profile accepted")
	}
}
