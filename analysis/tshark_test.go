package analysis

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
	"github.com/callpcap/callpcap/report"
)

// tsharkStream is one row of tshark's -z rtp,streams table.
type tsharkStream struct {
	src, dst, ssrc string
	packets, lost  int64 // tshark's lost is expected − received, duplicates included
}

// tsharkStreams runs tshark, the oracle for packets, loss and sequence errors, on a file.
func tsharkStreams(t *testing.T, path string) []tsharkStream {
	t.Helper()
	bin, err := exec.LookPath("tshark")
	if err != nil {
		if corpus.InCI() {
			t.Fatal("tshark is not installed: .ci/run installs it, and CI=true does not pass without the oracle")
		}
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	out, err := exec.Command(bin, "-n", "-q", "-r", path, "-o", "rtp.heuristic_rtp:TRUE", "-z", "rtp,streams").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	var rows []tsharkStream
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// start end srcIP srcPort dstIP dstPort SSRC payload... pkts lost (pct) ...
		if len(f) < 10 || !strings.HasPrefix(f[6], "0x") {
			continue
		}
		i := 7
		for i < len(f) && !isInt(f[i]) {
			i++ // payload names may have several words
		}
		if i+1 >= len(f) {
			continue
		}
		pk, _ := strconv.ParseInt(f[i], 10, 64)
		lost, _ := strconv.ParseInt(f[i+1], 10, 64)
		rows = append(rows, tsharkStream{addrPort(f[2] + ":" + f[3]), addrPort(f[4] + ":" + f[5]), strings.ToLower(f[6]), pk, lost})
	}
	return rows
}

func isInt(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }

// agreeWithTshark checks every stream tshark finds (with enough packets) against ours.
func agreeWithTshark(t *testing.T, path string, c report.Capture) {
	t.Helper()
	rows := tsharkStreams(t, path)
	if len(rows) == 0 {
		t.Fatalf("tshark found no RTP streams in %s", path)
	}
	for _, r := range rows {
		if r.packets < 10 {
			continue
		}
		var s *report.Stream
		for i := range c.Streams {
			if c.Streams[i].SSRC == r.ssrc && c.Streams[i].Src == r.src && c.Streams[i].Dst == r.dst {
				s = &c.Streams[i]
			}
		}
		if s == nil {
			t.Errorf("tshark stream %s %s -> %s (%d packets) not found", r.ssrc, r.src, r.dst, r.packets)
			continue
		}
		if s.Packets != r.packets || deref(s.Lost)-s.Duplicates != r.lost {
			t.Errorf("stream %s: packets %d, lost−duplicates %d; tshark %d and %d", r.ssrc, s.Packets,
				deref(s.Lost)-s.Duplicates, r.packets, r.lost)
		}
	}
}

// TestTsharkAgreesOnSynthesized: on a direct UDP call with loss, duplicates and reordering,
// tshark and we count the same packets and losses.
func TestTsharkAgreesOnSynthesized(t *testing.T) {
	a := audio()
	a.Lose = func(i int) bool { return i%37 == 5 }
	a.Dup = func(i int) bool { return i%101 == 3 }
	a.Delay = func(i int) time.Duration {
		if i%53 == 1 { // not packet 0: tshark counts expected from the first packet it sees
			return 45 * time.Millisecond
		}
		return 0
	}
	v := audio()
	v.SSRC, v.PT, v.ClockRate, v.Src, v.Dst, v.StartSeq = 0x77777777, 96, 90000, bob, alice, 65500
	v.Lose = func(i int) bool { return i >= 100 && i < 110 }
	data := pcapOf(t, append(a.Packets(), v.Packets()...))
	path := filepath.Join(t.TempDir(), "synth.pcap")
	os.WriteFile(path, data, 0o644)
	c := analyze(t, data, Options{})
	agreeWithTshark(t, path, c)
}

// TestTsharkAgreesOnCorpus compares with tshark on the corpus files that carry plain RTP.
func TestTsharkAgreesOnCorpus(t *testing.T) {
	corpus.Dir(t)
	for _, name := range []string{"g711a.pcap", "aaa.pcap", "h264.pcap", "rtp.pcapng"} {
		t.Run(name, func(t *testing.T) {
			path := corpus.Path(t, name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c := analyze(t, bytes.Clone(data), Options{})
			agreeWithTshark(t, path, c)
		})
	}
}
