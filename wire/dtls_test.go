package wire

import (
	"bytes"
	"testing"
)

func TestNextDTLSRecord(t *testing.T) {
	// type(1) version(2) epoch(2) sequence_number(6) length(2)
	hs := []byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3, 'a', 'b', 'c'}
	app := []byte{23, 0xfe, 0xfd, 0, 1, 0, 0, 0, 0, 0, 2, 0, 2, 'x', 'y'}
	cut := []byte{23, 0xfe, 0xfd, 0, 1, 0, 0, 0, 0, 0, 3, 0, 9, 'z'} // length 9, 1 byte present
	for _, tc := range []struct {
		name  string
		in    []byte
		types []byte
		frags []string
	}{
		{"two records", append(append([]byte{}, hs...), app...), []byte{22, 23}, []string{"abc", "xy"}},
		{"length beyond the datagram", append(append([]byte{}, app...), cut...), []byte{23, 23}, []string{"xy", "z"}},
		{"short header", hs[:12], nil, nil},
		{"DTLS 1.3 unified header", []byte{0x2c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, nil, nil},
		{"garbage after a record", append(append([]byte{}, hs...), 0x99, 0, 0), []byte{22}, []string{"abc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var types []byte
			var frags []string
			for rest := tc.in; ; {
				typ, frag, next, ok := NextDTLSRecord(rest)
				if !ok {
					break
				}
				if len(frag) > 0 && !bytes.Contains(tc.in, frag) {
					t.Errorf("fragment %q does not point into the input", frag)
				}
				types, frags, rest = append(types, typ), append(frags, string(frag)), next
			}
			if !bytes.Equal(types, tc.types) || len(frags) != len(tc.frags) {
				t.Fatalf("types %v fragments %q, want %v %q", types, frags, tc.types, tc.frags)
			}
			for i := range frags {
				if frags[i] != tc.frags[i] {
					t.Errorf("fragment %d %q, want %q", i, frags[i], tc.frags[i])
				}
			}
		})
	}
}
