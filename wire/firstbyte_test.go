package wire

import "testing"

func TestFirstByte(t *testing.T) {
	tests := []struct {
		name string
		b    byte
		want Range
	}{
		{"stun low", 0, RangeSTUN},
		{"stun high", 3, RangeSTUN},
		{"unassigned low", 4, RangeNone},
		{"unassigned high", 15, RangeNone},
		{"zrtp low", 16, RangeZRTP},
		{"zrtp high", 19, RangeZRTP},
		{"dtls low", 20, RangeDTLS},
		{"dtls 1.3 unified header", 0x2C, RangeDTLS},
		{"dtls high", 63, RangeDTLS},
		{"channeldata 0x4000", 0x40, RangeChannelData},
		{"channeldata 0x4FFF", 0x4F, RangeChannelData},
		{"quic short low", 80, RangeQUICShort},
		{"quic short high", 127, RangeQUICShort},
		{"rtp low", 128, RangeRTP},
		{"rtp high", 191, RangeRTP},
		{"quic long low", 192, RangeQUICLong},
		{"quic long high", 255, RangeQUICLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstByte(tt.b); got != tt.want {
				t.Errorf("FirstByte(%d) = %d, want %d", tt.b, got, tt.want)
			}
		})
	}
}

// The unified header is DTLS's range from 32: of the 256 first bytes, those 32 and no other.
func TestIsDTLSUnified(t *testing.T) {
	for b := range 256 {
		if got, want := IsDTLSUnified(byte(b)), b >= 32 && b <= 63; got != want {
			t.Errorf("IsDTLSUnified(%d) = %v, want %v", b, got, want)
		}
	}
}

func TestIsRTCP(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want bool
	}{
		{"one byte", []byte{0x80}, false},
		{"rtp pt 96", []byte{0x80, 0x60}, false},
		{"rtp pt 63 with marker", []byte{0x80, 0xBF}, false},      // 191
		{"sender report", []byte{0x80, 0xC8}, true},               // 200
		{"lowest rtcp type", []byte{0x80, 0xC0}, true},            // 192
		{"highest rtcp type", []byte{0x80, 0xDF}, true},           // 223
		{"rtp pt 96 with marker", []byte{0x80, 0xE0}, false},      // 224
		{"receiver report", []byte{0x81, 0xC9, 0x00, 0x07}, true}, // RC=1, RR, len=7
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRTCP(tt.b); got != tt.want {
				t.Errorf("IsRTCP(%x) = %v, want %v", tt.b, got, tt.want)
			}
		})
	}
}

func TestLegacyChannel(t *testing.T) {
	tests := []struct {
		n           uint16
		legacy, any bool
	}{
		{0x3FFF, false, false},
		{0x4000, false, true},
		{0x4FFF, false, true},
		{0x5000, true, true},
		{0x5001, true, true},
		{0x7FFE, true, true},
		{0x7FFF, true, true},
		{0x8000, false, false},
	}
	for _, tt := range tests {
		if got := IsAnyChannel(tt.n); got != tt.any {
			t.Errorf("IsAnyChannel(%#x) = %v, want %v", tt.n, got, tt.any)
		}
		if got := IsLegacyChannelByte(byte(tt.n >> 8)); got != tt.legacy {
			t.Errorf("IsLegacyChannelByte(%#x) = %v, want %v", tt.n>>8, got, tt.legacy)
		}
		if got := IsAnyChannelByte(byte(tt.n >> 8)); got != tt.any {
			t.Errorf("IsAnyChannelByte(%#x) = %v, want %v", tt.n>>8, got, tt.any)
		}
		// The legacy numbers' first byte is QUIC's by RFC 9443: only the demux's state tells.
		if tt.legacy && FirstByte(byte(tt.n>>8)) != RangeQUICShort {
			t.Errorf("FirstByte(%#x) = %d, want RangeQUICShort", tt.n>>8, FirstByte(byte(tt.n>>8)))
		}
	}
}
