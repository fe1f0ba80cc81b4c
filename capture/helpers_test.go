package capture_test

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

var (
	a4 = netip.MustParseAddrPort("192.0.2.1:5004")
	b4 = netip.MustParseAddrPort("198.51.100.2:40000")
	a6 = netip.MustParseAddrPort("[2001:db8::1]:5004")
	b6 = netip.MustParseAddrPort("[2001:db8::2]:3478")
)

// pcapFile returns a classic pcap (µs, little-endian) of link type link holding frames, one
// millisecond apart from t0.
func pcapFile(t testing.TB, link capture.LinkType, frames ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, link, false, false, 0)
	for i, f := range frames {
		if err := w.Write(t0+int64(i)*1e6, 0, f, 0); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

const t0 = 1_700_000_000_000_000_000

// readAllBytes opens data and returns copies of its packets and the error that ended them
// (nil for io.EOF).
func readAllBytes(t testing.TB, data []byte) (*capture.Reader, []capture.Packet, error) {
	t.Helper()
	return readAllFrom(t, bytes.NewReader(data))
}

func readAllFrom(t testing.TB, src io.Reader) (*capture.Reader, []capture.Packet, error) {
	t.Helper()
	r, err := capture.Open(src)
	if err != nil {
		return nil, nil, err
	}
	var out []capture.Packet
	for {
		var p capture.Packet
		err := r.Next(&p)
		if err == io.EOF {
			return r, out, nil
		}
		if err != nil {
			return r, out, err
		}
		p.Data = bytes.Clone(p.Data)
		p.Payload = bytes.Clone(p.Payload)
		out = append(out, p)
	}
}

// onePacket reads a file expected to hold exactly one packet.
func onePacket(t *testing.T, data []byte) capture.Packet {
	t.Helper()
	_, ps, err := readAllBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d packets, want 1", len(ps))
	}
	return ps[0]
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
