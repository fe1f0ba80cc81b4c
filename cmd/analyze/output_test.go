package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNotAnInput: -o naming one of the inputs, by the same path or another, is a usage
// error (exit 2, one line) and leaves the capture as it was; -o - is standard output.
func TestOutputNotAnInput(t *testing.T) {
	dir := t.TempDir()
	capFile := filepath.Join(dir, "call.pcap")
	data := smallPcap(t, 3)
	if err := os.WriteFile(capFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pcap")
	if err := os.Symlink(capFile, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"same path", []string{"-o", "call.pcap", "call.pcap"},
			"analyze: -o call.pcap is the input call.pcap: refusing to overwrite a capture with its report\n"},
		{"dot slash", []string{"call.pcap", "-o", "./call.pcap"},
			"analyze: -o ./call.pcap is the input call.pcap: refusing to overwrite a capture with its report\n"},
		{"symlink", []string{"--format", "json", "-o", link, "call.pcap"},
			"analyze: -o " + link + " is the input call.pcap: refusing to overwrite a capture with its report\n"},
		{"second input", []string{"-o", "call.pcap", "link.pcap", "call.pcap"},
			"analyze: -o call.pcap is the input link.pcap: refusing to overwrite a capture with its report\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tc.args...)
			if code != 2 || stdout != "" || stderr != tc.want {
				t.Errorf("exit %d, stdout %q, stderr\n%q\nwant exit 2, nothing on stdout,\n%q", code, stdout, stderr, tc.want)
			}
			if got, err := os.ReadFile(capFile); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("the capture changed (err %v)", err)
			}
		})
	}

	t.Run("a new file", func(t *testing.T) {
		code, stdout, stderr := runCmd(t, "", "-o", "new.txt", "call.pcap")
		b, _ := os.ReadFile("new.txt")
		if code != 0 || stdout != "" || !strings.HasPrefix(string(b), "call.pcap  pcap, ETHERNET, 3 packets") {
			t.Errorf("exit %d, stdout %q, stderr %q, new.txt %q", code, stdout, stderr, b)
		}
	})
	t.Run("dash is stdout", func(t *testing.T) {
		_, want, _ := runCmd(t, "", "--format", "json", "call.pcap")
		code, stdout, stderr := runCmd(t, "", "-o", "-", "--format", "json", "call.pcap")
		if code != 0 || stdout != want || !strings.HasPrefix(stdout, "{") {
			t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
		}
		if _, err := os.Stat("-"); err == nil {
			t.Error("-o - wrote a file named -")
		}
	})
}
