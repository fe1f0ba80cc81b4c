package capture

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/corpus"
)

// manifestCounts reads "## name" headings and their "packets: N" from the shared corpus's
// MANIFEST.md.
func manifestCounts(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(corpus.Path(t, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^## (\S+)\n(?:.*\n)*?- format: .*?packets: (\d+);`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// corpusDamaged are the files MANIFEST.md names as unreadable.
var corpusDamaged = map[string]bool{
	"shb-option-too-long.pcapng":   true,
	"pcap-invalid-version-1.pcap":  true,
	"pcapng-invalid-vers-1.pcapng": true,
}

type corpusResult struct {
	packets, snapped, fragments, reassembled int
	kinds                                    map[Kind]int // undecodable packets are kinds[KindUndecodable]
	err                                      error
}

func readAll(path string) (*Reader, corpusResult, error) {
	var res corpusResult
	f, err := os.Open(path)
	if err != nil {
		return nil, res, err
	}
	defer f.Close()
	r, err := Open(f)
	if err != nil {
		return nil, res, err
	}
	defer r.Close()
	res.kinds = map[Kind]int{}
	var p Packet
	for {
		err := r.Next(&p)
		if err != nil {
			if err != io.EOF {
				res.err = err
			}
			return r, res, nil
		}
		res.packets++
		res.kinds[p.Kind]++
		if p.Snapped {
			res.snapped++
		}
		if p.Fragment {
			res.fragments++
		}
		if p.Reassembled {
			res.reassembled++
		}
		if (p.Kind == KindUDP || p.Kind == KindTCP) && p.HeaderLen+p.PayloadLen != p.WireLen {
			return r, res, errors.New("HeaderLen + PayloadLen != WireLen")
		}
		if len(p.Payload) > p.PayloadLen || p.CapLen != len(p.Data) || p.Time < 0 {
			return r, res, errors.New("inconsistent packet")
		}
	}
}

// TestCorpus reads every real capture to its end and checks the packet counts capinfos
// gave (MANIFEST.md).
func TestCorpus(t *testing.T) {
	want := manifestCounts(t)
	dir := corpus.Dir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if name == "MANIFEST.md" || e.IsDir() {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r, res, err := readAll(filepath.Join(dir, name))
			if corpusDamaged[name] {
				if err == nil && res.err == nil {
					t.Errorf("damaged file read without error (%d packets)", res.packets)
				}
				t.Logf("error as expected: %v %v", err, res.err)
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if res.err != nil {
				if !errors.Is(res.err, ErrTruncated) {
					t.Errorf("after %d packets: %v", res.packets, res.err)
				}
				t.Logf("after %d packets: %v", res.packets, res.err)
			}
			if n, ok := want[name]; ok {
				checked++
				if res.packets != n {
					t.Errorf("%d packets, MANIFEST.md says %d", res.packets, n)
				}
			}
			drops, dropsOK := r.InterfaceDrops()
			t.Logf("%s/%s links %v packets %d kinds %v snapped %d fragments %d reassembled %d drops %d %v stats %+v",
				r.Format(), r.Compression(), r.LinkTypes(), res.packets, res.kinds, res.snapped, res.fragments,
				res.reassembled, drops, dropsOK, r.Stats())
		})
	}
	if checked < 10 {
		t.Errorf("only %d packet counts checked against MANIFEST.md", checked)
	}
}

// TestCorpusDamaged checks how the three damaged files fail.
func TestCorpusDamaged(t *testing.T) {
	for name, want := range map[string]error{
		"shb-option-too-long.pcapng":   ErrCorrupt,
		"pcap-invalid-version-1.pcap":  ErrUnsupported,
		"pcapng-invalid-vers-1.pcapng": ErrUnsupported,
	} {
		f, err := os.Open(corpus.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(f)
		f.Close()
		if !errors.Is(err, want) {
			t.Errorf("%s: Open error %v, want %v", name, err, want)
		}
	}
}
