package scrub

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"

	"github.com/callpcap/callpcap/analysis"
	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

func opener(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

func scrubBytes(t testing.TB, in []byte) ([]byte, Stats) {
	t.Helper()
	var out bytes.Buffer
	st, err := Scrub(context.Background(), "in", opener(in), &out)
	if err != nil {
		t.Fatalf("Scrub: %v", err)
	}
	return out.Bytes(), st
}

// analyze is the analysis' report of b, without the fields that name the file.
func analyze(t testing.TB, b []byte) report.Capture {
	t.Helper()
	c, err := analysis.Analyze(context.Background(), "x", bytes.NewReader(b), analysis.Options{})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	c.File, c.Compression = "", ""
	return c
}

// record is what a capture record keeps through scrub.
type record struct {
	Time             int64
	Iface            int
	CapLen, FrameLen int
}

// records reads every record of a capture, and the error that ended the reading.
func records(b []byte) ([]record, error) {
	rd, err := capture.Open(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []record
	var p capture.Packet
	for {
		err := rd.Next(&p)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, record{p.Time, p.Iface, p.CapLen, p.FrameLen})
	}
}

// TestScrub checks, on each synthesized capture: (a) the analysis reports the same of the
// copy as of the original; (b) the copy is, byte for byte, the same capture generated with
// zeros for payload (UDP/IPv4 checksums 0, TCP and UDP/IPv6 checksums right for the new
// bytes), so every payload byte is zero and nothing else moved, records, times and lengths
// included; (c) it compresses to a small fraction of the original.
func TestScrub(t *testing.T) {
	want := map[string]Stats{
		// 900 audio (3 streams, 80 bytes of payload), 585 video (1100), 22 RTX: 15 repairs
		// (1100 after the OSN) and 7 probes (199 bytes of padding before the count, zeros
		// already: their packets are left alone); 5 DTLS application_data records of 40.
		// Checksums: the 1200 IPv4 RTP packets that changed and the 5 DTLS datagrams cleared,
		// the 300 IPv6 ones recomputed.
		"udp-pcapng": {Packets: 1517, RTPPackets: 1507, DTLSRecords: 5,
			ZeroedBytes: 900*80 + 585*1100 + 15*1100 + 7*199 + 5*40, ChecksumsCleared: 1205, ChecksumsRecomputed: 300},
		// Cut at 200 bytes of frame, 158 of RTP: video and RTX keep 146 bytes of payload each,
		// the probes too (their padding count was cut: all of it is payload), audio and DTLS
		// are whole. The RTX stream is still one (its OSNs kept): 144 bytes zeroed of each.
		"udp-snapped-pcap": {Packets: 1517, RTPPackets: 1507, DTLSRecords: 5,
			ZeroedBytes: 900*80 + 585*146 + 15*144 + 7*144 + 5*40, ChecksumsCleared: 1205, ChecksumsRecomputed: 300},
		// 200 audio (80) and 400 video (1001) in ChannelData, 200 + 200 audio (160) in Send
		// and Data indications.
		"turn-udp-pcap-nano": {Packets: 1000, RTPPackets: 1000, ZeroedBytes: 200*80 + 400*1001 + 400*160, ChecksumsCleared: 1000},
		// 1500 RTP messages less the one whose header the capture missed; the 20 bytes of its
		// tail after the gap are the unframer's resync_skipped_bytes. ZeroedBytes counts the
		// RTP payload in every captured copy: 570,000 + 521,750 bytes in the streams, less
		// what fell in the gap, plus the retransmitted copies.
		"turn-tcp-pcap": {Packets: 4030, RTPPackets: 1499, ZeroedBytes: 1094047, UnplacedBytes: 20, ChecksumsRecomputed: 2019},
		// 400 audio (80) and 400 video (900): 392,000 bytes, plus 9,000 in the copies of the
		// segments lost after the capture point.
		"ice-tcp-ipv6-pcapng": {Packets: 1213, RTPPackets: 800, ZeroedBytes: 401000, ChecksumsRecomputed: 610},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			random, zero := tc.write(tc.pkts(false)), tc.write(tc.pkts(true))
			got, st := scrubBytes(t, random)

			// (a) The same report.
			if diff := cmp.Diff(analyze(t, random), analyze(t, got)); diff != "" {
				t.Errorf("report of the scrubbed copy differs (-original +scrubbed):\n%s", diff)
			}

			// (b) Byte for byte the zero-payload capture.
			exp := expected(random, zero)
			if !bytes.Equal(got, exp) {
				n := 0
				for i := range min(len(got), len(exp)) {
					if got[i] != exp[i] && n < 10 {
						t.Errorf("byte %d: got %#02x, want %#02x (input %#02x)", i, got[i], exp[i], random[i])
						n++
					}
				}
				t.Errorf("scrubbed copy differs from the zero-payload capture (lengths %d, %d)", len(got), len(exp))
			}
			ri, err := records(random)
			if err != nil {
				t.Fatal(err)
			}
			ro, err := records(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ri, ro, cmp.AllowUnexported(record{})); diff != "" {
				t.Errorf("records differ (-input +output):\n%s", diff)
			}

			// (c) It compresses.
			gi, go_ := gzipLen(random), gzipLen(got)
			if go_*10 > gi {
				t.Errorf("gzip: %d bytes scrubbed, %d original: want at most a tenth", go_, gi)
			}
			t.Logf("%s: %d bytes, gzip %d -> %d; %+v", tc.name, len(random), gi, go_, st)
			if w := want[tc.name]; st != w {
				t.Errorf("stats %+v, want %+v", st, w)
			}
		})
	}
}

func gzipLen(b []byte) int {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Len()
}

// TestScrubUnreadable: an input that is no capture fails as the analysis fails, and nothing
// is written.
func TestScrubUnreadable(t *testing.T) {
	var out bytes.Buffer
	_, err := Scrub(context.Background(), "junk", opener([]byte("not a capture at all")), &out)
	if !errors.Is(err, analysis.ErrUnreadable) || !errors.Is(err, capture.ErrNotCapture) {
		t.Errorf("err = %v, want ErrUnreadable and ErrNotCapture", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %d bytes", out.Len())
	}
}

// TestScrubDamagedGzip: a gzip'd capture cut short (a download stopped half way) or
// damaged half way is scrubbed as far as it reads: no error, Damaged, and the copy's records
// are the records the input gives before the damage.
func TestScrubDamagedGzip(t *testing.T) {
	pkts := turnTCPCall(false)
	slices.SortStableFunc(pkts, func(x, y callgen.Packet) int { return compare64(x.T, y.T) })
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(pcapOf(false, 0)(pkts))
	zw.Close()
	half := gz.Len() / 2
	corrupt := bytes.Clone(gz.Bytes())
	for i := half; i < half+64; i++ {
		corrupt[i] = 0xff
	}
	for name, in := range map[string][]byte{"cut": gz.Bytes()[:half], "corrupt": corrupt} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			st, err := Scrub(context.Background(), name+".pcap.gz", opener(in), &out)
			if err != nil {
				t.Fatalf("Scrub: %v", err)
			}
			ri, erri := records(in)
			ro, _ := records(out.Bytes())
			if !st.Damaged || erri == nil || len(ri) == 0 || st.Packets != int64(len(ri)) {
				t.Fatalf("damaged %v, %d packets; the input reads %d records then %v", st.Damaged, st.Packets, len(ri), erri)
			}
			if diff := cmp.Diff(ri, ro); diff != "" {
				t.Errorf("records (-input +copy):\n%s", diff)
			}
		})
	}
}
