package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtIter(t *testing.T) {
	type elem struct {
		ID   uint8
		Data []byte
	}
	tests := []struct {
		name    string
		profile uint16
		body    []byte
		two     bool
		want    []elem
	}{
		{"one-byte with padding", 0xBEDE,
			[]byte{0x10, 0xaa, 0x00, 0x21, 0x01, 0x02, 0x00, 0x00}, // id1 len1, pad, id2 len2, pad
			false, []elem{{1, []byte{0xaa}}, {2, []byte{0x01, 0x02}}}},
		{"one-byte stop at id 15", 0xBEDE, []byte{0x10, 0xaa, 0xf0, 0x10, 0xbb}, false, []elem{{1, []byte{0xaa}}}},
		{"one-byte truncated", 0xBEDE, []byte{0x13, 0xaa}, false, nil},
		{"two-byte with empty element", 0x1005,
			[]byte{0x01, 0x00, 0xc8, 0x02, 0x01, 0x02, 0x00, 0x00}, // id1 len0, id200 len2, pad
			true, []elem{{1, []byte{}}, {200, []byte{0x01, 0x02}}}},
		{"two-byte truncated", 0x1000, []byte{0x01, 0x05, 0x00}, true, nil},
		{"two-byte id without length", 0x1000, []byte{0x01, 0x00, 0x07}, true, []elem{{1, []byte{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, ok := NewExtIter(tt.profile, tt.body)
			if !ok {
				t.Fatal("profile not recognised")
			}
			if it.TwoByte() != tt.two {
				t.Errorf("TwoByte = %v, want %v", it.TwoByte(), tt.two)
			}
			var got []elem
			for {
				id, data, ok := it.Next()
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
	if _, ok := NewExtIter(0x1234, nil); ok {
		t.Error("unknown profile accepted")
	}
}

func TestRTPElements(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		ok   bool
	}{
		{"no extension", []byte{0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, false},
		{"one-byte", []byte{0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xbe, 0xde, 0, 1, 0x10, 0xaa, 0, 0}, true},
		{"rfc 3550 profile", []byte{0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x12, 0x34, 0, 1, 0x10, 0xaa, 0, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r RTP
			if err := r.Unmarshal(tt.data, false); err != nil {
				t.Fatal(err)
			}
			_, ok := NewExtIter(r.ExtensionProfile, r.ExtensionBody)
			if ok = ok && r.Extension; ok != tt.ok {
				t.Errorf("elements ok = %v, want %v", ok, tt.ok)
			}
		})
	}
}
