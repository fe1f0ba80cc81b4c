package callgen

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// update is -update: rewrite the example captures in testdata/.
var update = golden.Update

func exampleBytes(t *testing.T, pkts []Packet) []byte {
	var raw bytes.Buffer
	w := pcapgen.NewPcap(&raw, capture.LinkEthernet, false, false, 0)
	if err := Write(w, pkts); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	return gz.Bytes()
}

// TestExampleCaptures keeps the committed example captures what ExampleTURNCall and
// ExampleTURNTCPCall write (the README's first command analyses the TCP one).
func TestExampleCaptures(t *testing.T) {
	for name, pkts := range map[string][]Packet{
		"turn-udp-call.pcap.gz": ExampleTURNCall(),
		"turn-tcp-call.pcap.gz": ExampleTURNTCPCall(),
	} {
		t.Run(name, func(t *testing.T) { checkExample(t, filepath.Join("..", "..", "..", "testdata", name), pkts) })
	}
}

func checkExample(t *testing.T, examplePath string, pkts []Packet) {
	got := exampleBytes(t, pkts)
	if *update {
		if err := os.WriteFile(examplePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/testgen/callgen -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what ExampleTURNCall writes: run go test ./internal/testgen/callgen -update", examplePath)
	}
}
