package callgen

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/pcapgen"
)

var update = flag.Bool("update", false, "rewrite testdata/turn-udp-call.pcap.gz")

// examplePath is the capture the README's first command analyses.
var examplePath = filepath.Join("..", "..", "testdata", "turn-udp-call.pcap.gz")

func exampleBytes(t *testing.T) []byte {
	var raw bytes.Buffer
	w := pcapgen.NewPcap(&raw, capture.LinkEthernet, false, false, 0)
	if err := Write(w, ExampleTURNCall()); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	return gz.Bytes()
}

// TestExampleCapture keeps the committed example capture what ExampleTURNCall writes.
func TestExampleCapture(t *testing.T) {
	got := exampleBytes(t)
	if *update {
		if err := os.WriteFile(examplePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/callgen -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what ExampleTURNCall writes: run go test ./internal/callgen -update", examplePath)
	}
}
