package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"net/netip"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// smallPcap is a classic pcap of n UDP packets of 100 bytes of payload.
func smallPcap(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 65535)
	src, dst := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:6000")
	for i := range n {
		f := pcapgen.EtherUDP(src, dst, make([]byte, 100))
		if err := w.Write(int64(i)*int64(20e6), 0, f, len(f)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t *testing.T, data []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return zw.EncodeAll(data, nil)
}

// TestErrorLines: every way an input fails gives one line on standard error, the file's
// name and then why, each said once (no "capture: not a capture file" after "not a
// readable capture", no "gzip: gzip:"). Damage after a readable header is a warning line
// of the same shape.
func TestErrorLines(t *testing.T) {
	dir := t.TempDir()
	pcap := smallPcap(t, 3)
	badCRC := gzipped(t, pcap)
	badCRC[len(badCRC)-8] ^= 0xff // the gzip trailer's CRC-32
	pcapV1 := bytes.Clone(pcap[:24])
	binary.LittleEndian.PutUint16(pcapV1[4:], 1) // version 1.4
	ngV2 := pcapgen.EmptyPcapNG()
	binary.LittleEndian.PutUint16(ngV2[12:], 2) // SHB: type, length, byte-order magic, major
	cases := []struct {
		name string
		data []byte // nil: the file does not exist
		args []string
		code int
		want string
	}{
		{"text", []byte("this is not a capture\n"), nil, 1,
			"analyze: text: not a capture file: unknown magic number 74686973\n"},
		{"zero bytes", []byte{}, nil, 1,
			"analyze: zero bytes: not a capture file: empty file\n"},
		{"three bytes", []byte{0xd4, 0xc3, 0xb2}, nil, 1,
			"analyze: three bytes: not a capture file: only 3 bytes\n"},
		{"pcap header cut", pcap[:10], nil, 1,
			"analyze: pcap header cut: damaged capture file: pcap file header cut short\n"},
		{"pcapng header cut", pcapgen.EmptyPcapNG()[:20], nil, 1,
			"analyze: pcapng header cut: damaged capture file: section header cut short\n"},
		{"pcap 1.4", pcapV1, nil, 1,
			"analyze: pcap 1.4: unsupported capture format: pcap version 1.4\n"},
		{"pcapng 2.0", ngV2, nil, 1,
			"analyze: pcapng 2.0: unsupported capture format: pcapng version 2.0\n"},
		{"modified pcap", []byte{0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0}, nil, 1,
			"analyze: modified pcap: unsupported capture format: modified (Kuznetzov) pcap\n"},
		{"bad gzip", []byte("\x1f\x8b\x08\x00garbage garbage garbage"), nil, 1,
			"analyze: bad gzip: damaged capture file: gzip stream: corrupt input before offset 7\n"},
		{"gzip cut", gzipped(t, pcap)[:12], nil, 1,
			"analyze: gzip cut: damaged capture file: gzip stream cut short\n"},
		{"gzip of text", gzipped(t, []byte("hello, world\n")), nil, 1,
			"analyze: gzip of text: not a capture file: unknown magic number 68656c6c\n"},
		{"bad zstd", []byte("\x28\xb5\x2f\xfdgarbage garbage garbage"), nil, 1,
			"analyze: bad zstd: damaged capture file: zstd stream: unknown dictionary\n"},
		{"zstd of nothing", zstded(t, nil), nil, 1,
			"analyze: zstd of nothing: not a capture file: empty file\n"},
		{"missing", nil, nil, 1,
			"analyze: missing: no such file or directory\n"},
		{"a directory", nil, []string{dir}, 1,
			"analyze: " + dir + ": is a directory\n"},
		{"record cut", pcap[:len(pcap)-5], nil, 0,
			"analyze: record cut: warning: capture file ends mid-record: record cut short: the report covers the 2 packets before it\n"},
		{"gzip checksum", badCRC, nil, 0,
			"analyze: gzip checksum: warning: damaged capture file: gzip stream: invalid checksum: the report covers the 3 packets before it\n"},
	}
	t.Chdir(dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.data != nil {
				if err := os.WriteFile(tc.name, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := tc.args
			if args == nil {
				args = []string{tc.name}
			}
			code, _, stderr := runCmd(t, "", args...)
			if code != tc.code || stderr != tc.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, stderr, tc.code, tc.want)
			}
		})
	}
	// The JSON entry of an unreadable file says why, without the name its "file" gives.
	code, stdout, _ := runCmd(t, "", "--format", "json", "text")
	if code != 1 || !bytes.Contains([]byte(stdout), []byte(`"error": "not a capture file: unknown magic number 74686973"`)) {
		t.Errorf("exit %d, JSON %s", code, stdout)
	}
}
