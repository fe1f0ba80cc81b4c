package analysis

import (
	"bufio"
	"bytes"
	"context"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/internal/testgen/textcheck"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
)

// damaged are the corpus files whose headers are broken or of an unknown version: a
// one-line error is right for them.
var damaged = map[string]bool{
	"shb-option-too-long.pcapng":   true,
	"pcap-invalid-version-1.pcap":  true,
	"pcapng-invalid-vers-1.pcapng": true,
}

// falseStreams are files where tshark's heuristic finds RTP streams that are not RTP
// (MANIFEST.md): reporting them is a defect.
var falseStreams = map[string]bool{
	"telegram_videocall.pcapng":  true,
	"ip4_fragments.pcap":         true,
	"fuzz-2020-02-16-11740.pcap": true,
	"fuzz-2006-06-26-2594.pcap":  true,
	"ip_fragmented_garbage.pcap": true,
	"ipv6frag.pcap":              true,
}

// noLegs are files with no media path at all, where an early heuristic found one: in
// raw_ip.pcap an HTTP exchange on port 80 reads as one ChannelData message ("GE", "HT").
var noLegs = map[string]bool{"raw_ip.pcap": true}

// ourCount is where our packet count differs from tshark's (MANIFEST.md) for a reason
// checked by hand, keyed by file and SSRC, or SSRC and source where one SSRC has streams
// from several sources.
var ourCount = map[string]map[string]int64{
	// After the T.38 re-INVITE tshark decodes this port as T.38, but 27 more packets are
	// RTP (v2, PT 8, the same SSRC, continuing sequence numbers).
	"FAX-Call-t38-CA-TDM-SIP-FB-1.pcap": {"0x0eaf0eaf": 159},
	// Every uplink packet is recorded twice by -i any, the copies differing in the SLL
	// header (ARPHRD): capture duplicates, analysed once (DESIGN.md, Pitfalls).
	"sample1_ipv4_amr-nb.pcap": {"0x401dd106": 120, "0x40c1b512": 59, "0x00612603": 264, "0x0025b105": 526},
	// SRTP packets with the P bit (first byte 0xb0) whose last byte, the end of the auth
	// tag (RFC 3711, 3.1), is beyond the payload when read as a padding count: tshark
	// rejects them, so its streams miss sequence numbers that arrived. Sequence numbers
	// 1-31 and 1-104 (Meet's padded packets on SSRC 0), and 28359-28370 (Signal), all
	// distinct and without a gap; tshark leaves out seqs 1, 4-7, 31 (v4), 1, 18, 29, 30,
	// 42, 60, 67, 68, 75, 87, 88 (v6) and 28365 (Signal), and counts them lost.
	"stun_google_meet.pcapng": {
		"0x00000000 142.250.82.76:19305":          31,
		"0x00000000 [2001:4860:4864:6::81]:19305": 104,
	},
	"stun_signal.pcapng": {"0x000007dd": 12},
}

// manifestStream is one row of a MANIFEST.md RTP table.
type manifestStream struct {
	src, dst, ssrc string
	packets        int64
}

func readManifest(t *testing.T) map[string][]manifestStream {
	t.Helper()
	f, err := os.Open(corpus.Path(t, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile(`^\|\s*(\S+) -> (\S+)\s*\|\s*(0x[0-9A-Fa-f]+)\s*\|[^|]*\|\s*(\d+)\s*\|`)
	out := map[string][]manifestStream{}
	file := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "## "); ok {
			file = strings.TrimSpace(name)
			continue
		}
		if m := row.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			n, _ := strconv.ParseInt(m[4], 10, 64)
			out[file] = append(out[file], manifestStream{addrPort(m[1]), addrPort(m[2]), strings.ToLower(m[3]), n})
		}
	}
	return out
}

// analyzeFile analyses a corpus file and checks its report, or its {file, error} entry,
// against the JSON contract, its wire bytes against those counted without the analyzer, and
// its text report against the width DESIGN gives it.
func analyzeFile(t *testing.T, name string) (report.Capture, error) {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Analyze(context.Background(), name, bytes.NewReader(data), Options{})
	schematest.CheckCapture(t, c)
	if err == nil {
		checkWire(t, data, c)
	}
	var b bytes.Buffer
	if err := render.Text(&b, schematest.Wrap(c)); err != nil {
		t.Fatal(err)
	}
	textcheck.Width(t, b.String())
	return c, err
}

// TestCorpus analyses every real capture: none may panic or fail except the damaged ones,
// and the RTP streams found must be those MANIFEST.md lists (tshark's view), without the
// false positives it points out.
func TestCorpus(t *testing.T) {
	manifest := readManifest(t)
	entries, err := os.ReadDir(corpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == "MANIFEST.md" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			c, err := analyzeFile(t, name)
			if damaged[name] {
				if err == nil {
					t.Logf("damaged file gave a report (acceptable): %d packets", c.Packets)
				} else if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			if noLegs[name] && len(c.Legs) > 0 {
				t.Errorf("legs %+v, want none", c.Legs)
			}
			if falseStreams[name] {
				if len(c.Streams) > 0 {
					t.Errorf("reported %d false RTP streams: %+v", len(c.Streams), c.Streams[0])
				}
				return
			}
			checkManifestStreams(t, manifest[name], ourCount[name], c)
		})
	}
}

func checkManifestStreams(t *testing.T, want []manifestStream, ours map[string]int64, c report.Capture) {
	t.Helper()
	for _, w := range want {
		if w.packets < 10 {
			continue // below --min-packets: not reported, by design
		}
		found := false
		for _, s := range c.Streams {
			if s.SSRC == w.ssrc && s.Src == w.src && s.Dst == w.dst {
				found = true
				if n, ok := ours[w.ssrc]; ok {
					w.packets = n
				}
				if n, ok := ours[w.ssrc+" "+w.src]; ok {
					w.packets = n
				}
				if s.Packets != w.packets {
					t.Errorf("stream %s %s -> %s: %d packets, tshark %d", w.ssrc, w.src, w.dst, s.Packets, w.packets)
				}
			}
		}
		if !found {
			t.Errorf("stream %s %s -> %s (%d packets) not found", w.ssrc, w.src, w.dst, w.packets)
		}
	}
}

// addrPort writes tshark's "addr:port" (IPv6 without brackets) as netip.AddrPort does.
func addrPort(s string) string {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s
	}
	a, err := netip.ParseAddr(s[:i])
	p, perr := strconv.ParseUint(s[i+1:], 10, 16)
	if err != nil || perr != nil {
		return s
	}
	return netip.AddrPortFrom(a, uint16(p)).String()
}
