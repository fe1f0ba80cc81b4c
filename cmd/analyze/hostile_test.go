package main

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pion/stun/v3"
	"golang.org/x/net/html"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// Hostile text a crafted capture carries: markup, script, and Markdown link syntax.
const (
	hostileScript = `<script>alert(1)</script>`
	hostileImg    = `</svg><img src=x onerror=alert(1)>`
	hostileLink   = `[click](javascript:alert(1))`
	// hostileCodec has no '/', which would end an rtpmap encoding name.
	hostileCodec = `<script>alert(1)` + hostileLink
)

// hostileCapture is an audio call whose SIP INVITE's SDP names payload type 97 with a codec
// of markup, and whose ICE check carries markup and Markdown in SOFTWARE and USERNAME.
func hostileCapture(t *testing.T) []byte {
	t.Helper()
	alice := netip.MustParseAddrPort("10.0.0.1:40000")
	bob := netip.MustParseAddrPort("198.51.100.9:50000")
	s := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x1a2b3c4d, PT: 97, ClockRate: 8000, Interval: 20 * time.Millisecond,
		PayloadSize: 160, Count: 500, StartSeq: 1000, StartTS: 5000, Start: 100 * time.Millisecond}
	body := strings.ReplaceAll(fmt.Sprintf("v=0\no=bob 1 1 IN IP4 %[1]s\ns=%[3]s %[4]s\nc=IN IP4 %[1]s\nt=0 0\n"+
		"m=audio %[2]d RTP/AVP 97\na=rtpmap:97 %[5]s/8000\na=sendrecv\n",
		bob.Addr(), bob.Port(), hostileImg, hostileLink, hostileCodec), "\n", "\r\n")
	head := strings.ReplaceAll(fmt.Sprintf("INVITE sip:alice@%[1]s SIP/2.0\nVia: SIP/2.0/UDP %[2]s;branch=z9hG4bK1\n"+
		"To: <sip:alice@%[1]s>\nFrom: <sip:bob@%[2]s>;tag=1\nCall-ID: x\nCSeq: 1 INVITE\n"+
		"Content-Type: application/sdp\nContent-Length: %[3]d\n\n", alice.Addr(), bob.Addr(), len(body)), "\n", "\r\n")
	sip := callgen.Packet{T: callgen.Epoch, Frame: pcapgen.EtherUDP(netip.AddrPortFrom(bob.Addr(), 5060),
		netip.AddrPortFrom(alice.Addr(), 5060), []byte(head+body))}
	m := stun.New()
	if err := m.Build(stun.NewTransactionIDSetter([stun.TransactionIDSize]byte{1, 2, 3}),
		stun.BindingRequest, stun.NewSoftware(hostileImg+hostileScript),
		stun.NewUsername(hostileImg+hostileLink+":"+hostileScript)); err != nil {
		t.Fatal(err)
	}
	check := callgen.Packet{T: callgen.Epoch + int64(50*time.Millisecond), Frame: pcapgen.EtherUDP(alice, bob, m.Raw)}
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
	if err := callgen.Write(w, append(s.Packets(), sip, check)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// reportTags are the only elements the HTML report makes.
var reportTags = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"section": true, "h1": true, "h2": true, "h3": true, "p": true, "div": true, "table": true, "tr": true, "th": true,
	"td": true, "figure": true, "figcaption": true, "svg": true, "path": true, "text": true, "circle": true,
	"ul": true, "li": true, "span": true}

// TestHostileCaptureHTML: text from a crafted capture (its file name, SDP codec, STUN
// USERNAME and SOFTWARE) reaches the HTML page only as text: no script, no event handler,
// no element the report did not make. The codec and usernames are on the page, escaped.
func TestHostileCaptureHTML(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, `<b onmouseover=alert(1)>[x](javascript:alert(1)).pcap`)
	if err := os.WriteFile(name, hostileCapture(t), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCmd(t, "", "-q", "--format", "json", name)
	if code != 0 || !strings.Contains(out, `"codec": "`+hostileCodec) || !strings.Contains(out, `onerror=alert(1)`) {
		t.Fatalf("exit %d, stderr %q: the report does not carry the hostile codec and username:\n%s", code, stderr, out)
	}
	code, page, stderr := runCmd(t, "", "-q", "--format", "html", name)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)[click](javascript:alert(1))", "&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;", "&lt;b onmouseover=alert(1)&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
			continue
		}
		tok := z.Token()
		if !reportTags[tok.Data] {
			t.Errorf("element <%s> the report did not make", tok.Data)
		}
		for _, a := range tok.Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") || a.Key == "href" || a.Key == "src" {
				t.Errorf("<%s> has attribute %s=%q", tok.Data, a.Key, a.Val)
			}
		}
	}
}

// TestHostileCaptureMarkdown: in Markdown the same text is escaped: no raw HTML tag, no link
// but the report's own chart images.
func TestHostileCaptureMarkdown(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, `<b onmouseover=alert(1)>[x](javascript:alert(1)).pcap`)
	if err := os.WriteFile(name, hostileCapture(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.md")
	if code, _, stderr := runCmd(t, "", "-q", "-o", out, "--charts", filepath.Join(dir, "charts"), name); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), `\<script\>alert(1)\[click\](javascript:alert(1))`) {
		t.Errorf("the codec is not on the page, escaped:\n%s", md)
	}
	for i, line := range strings.Split(string(md), "\n") {
		for j := 0; j < len(line); j++ {
			escaped := j > 0 && line[j-1] == '\\'
			switch {
			case line[j] == '<' && !escaped:
				t.Errorf("line %d: raw '<': %s", i+1, line)
			case line[j] == '[' && !escaped && !(j == 1 && line[0] == '!'):
				t.Errorf("line %d: a link the report did not make: %s", i+1, line)
			}
		}
	}
	for _, kind := range []string{"bitrate", "loss"} {
		png := filepath.Join(dir, "charts", "b_onmouseover_alert_1_x_javascript_alert_1-d1-"+kind+".png")
		if _, err := os.Stat(png); err != nil {
			t.Errorf("chart: %v", err)
		}
		if !strings.Contains(string(md), "(charts/"+filepath.Base(png)+")") {
			t.Errorf("report.md does not link %s", filepath.Base(png))
		}
	}
}
