package scrub

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/golden"
)

// fuzzSeeds returns the first packets of each test capture: every path of the plan (UDP,
// TURN, indications, DTLS, RTX, TCP framings) in a few kilobytes.
func fuzzSeeds() map[string][]byte {
	seeds := map[string][]byte{}
	for _, tc := range cases {
		pkts := tc.pkts(false)
		slices.SortStableFunc(pkts, func(x, y callgen.Packet) int { return compare64(x.T, y.T) })
		seeds[tc.name] = tc.write(pkts[:min(len(pkts), 16)])
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(seeds["turn-udp-pcap-nano"])
	zw.Close()
	seeds["gzip"] = gz.Bytes()
	return seeds
}

// TestWriteFuzzSeeds checks that testdata/fuzz/FuzzScrub holds the seeds fuzzSeeds makes;
// -update rewrites them.
func TestWriteFuzzSeeds(t *testing.T) {
	for name, data := range fuzzSeeds() {
		golden.Check(t, filepath.Join("testdata", "fuzz", "FuzzScrub", "seed-"+name), golden.FuzzSeed(data))
	}
}

// FuzzScrub: any input, no panic; an input that opens as a capture gives a copy with the
// same records (times, interfaces, lengths), ending the same way.
func FuzzScrub(f *testing.F) {
	for _, data := range fuzzSeeds() {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_, err := Scrub(context.Background(), "fuzz", opener(data), &out)
		ri, erri := records(data)
		if err != nil {
			if ri != nil || erri == nil {
				t.Fatalf("Scrub failed (%v) on an input that opens (%d records, %v)", err, len(ri), erri)
			}
			return
		}
		ro, erro := records(out.Bytes())
		if diff := cmp.Diff(ri, ro); diff != "" {
			t.Fatalf("records differ (-input +output):\n%s", diff)
		}
		if erri != nil && cutCompression(data) {
			// The compressed stream is cut or damaged: the copy, decompressed, holds the
			// records read before (compared above) and what followed them; the damage to
			// the compression cannot be written into it.
			return
		}
		if (erri == nil) != (erro == nil) || erri != nil && erri.Error() != erro.Error() {
			t.Fatalf("reading ended with %v, the copy with %v", erri, erro)
		}
	})
}

// cutCompression says whether data is gzip or zstd whose stream is cut or damaged.
func cutCompression(data []byte) bool {
	var r io.Reader
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return true
		}
		r = zr
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zd, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return true
		}
		defer zd.Close()
		r = zd
	default:
		return false
	}
	_, err := io.Copy(io.Discard, r)
	return err != nil
}
