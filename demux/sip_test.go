package demux

import "testing"

func TestIsSIP(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"invite", "INVITE sip:bob@example.org SIP/2.0\r\nVia: x\r\n", true},
		{"sips uri", "BYE sips:bob@example.org;transport=tls SIP/2.0\r\n", true},
		{"tel uri", "INVITE tel:+15551234567 SIP/2.0\r\n", true},
		{"lf only", "OPTIONS sip:example.org SIP/2.0\n", true},
		{"200 ok", "SIP/2.0 200 OK\r\n", true},
		{"183 progress", "SIP/2.0 183 Session Progress\r\n", true},
		{"status line alone", "SIP/2.0 100", true},
		{"status not digits", "SIP/2.0 2x0 OK\r\n", false},
		{"status short", "SIP/2.0 20", false},
		{"http request", "GET /index.html HTTP/1.1\r\n", false},
		{"http response", "HTTP/1.1 200 OK\r\n", false},
		{"request without version", "INVITE sip:bob@example.org\r\n", false},
		{"request line not ended", "INVITE sip:bob@example.org SIP/2.0", false},
		{"lower-case method", "invite sip:bob@example.org SIP/2.0\r\n", false},
		{"method too long", "ABCDEFGHIJKLMNOPQ sip:x SIP/2.0\r\n", false},
		{"empty", "", false},
		{"rtp", "\x80\x00\x00\x01", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSIP([]byte(tt.data)); got != tt.want {
				t.Errorf("IsSIP(%q) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
	if !IsSIP(inviteAMR) || !IsSIP(okOpusIPv6) {
		t.Error("IsSIP is false for the INVITE or the 200 OK")
	}
}

// TestSIPMessageLen: SIP over TCP is cut by its headers and Content-Length (RFC 3261 18.3).
func TestSIPMessageLen(t *testing.T) {
	msg := "INVITE sip:alice@10.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 10.0.0.2\r\nl: 5\r\n\r\nv=0\r\n"
	ok := "SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n"
	for _, tc := range []struct {
		in   string
		want int
	}{
		{msg + ok, len(msg)},
		{ok + msg, len(ok)},
		{msg[:len(msg)-1], 0}, // the body is not all there
		{msg[:20], 0},         // nor the start line
		{"BYE sip:alice@10.0.0.1 SIP/2.0\r\nVia: x\r\n\r\n" + msg, 42}, // no Content-Length: no body
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", -1},
		{"\x16\x03\x01\x00\x10", 0}, // no line yet: more is needed to say
	} {
		if got := SIPMessageLen([]byte(tc.in)); got != tc.want {
			t.Errorf("SIPMessageLen(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
