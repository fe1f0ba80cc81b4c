package demux

import (
	"bytes"
	"testing"
)

func TestParseChannelData(t *testing.T) {
	tests := []struct {
		name        string
		data        []byte
		tcp         bool
		wantOK      bool
		wantChannel uint16
		wantPayload []byte
		wantFraming int
	}{
		{name: "udp, no padding",
			data:   []byte{0x40, 0x00, 0x00, 0x03, 0xAA, 0xBB, 0xCC}, // channel 0x4000, len=3
			wantOK: true, wantChannel: 0x4000, wantPayload: []byte{0xAA, 0xBB, 0xCC}, wantFraming: 4},
		{name: "udp, padded",
			data:   []byte{0x40, 0x01, 0x00, 0x03, 0xAA, 0xBB, 0xCC, 0x00}, // len=3, 1 padding
			wantOK: true, wantChannel: 0x4001, wantPayload: []byte{0xAA, 0xBB, 0xCC}, wantFraming: 5},
		{name: "tcp, padded to 4",
			data: []byte{0x4F, 0xFF, 0x00, 0x01, 0xAA, 0x00, 0x00, 0x00}, // channel 0x4FFF, len=1, 3 padding
			tcp:  true, wantOK: true, wantChannel: 0x4FFF, wantPayload: []byte{0xAA}, wantFraming: 7},
		{name: "tcp, padding left out by the unframer",
			data: []byte{0x40, 0x00, 0x00, 0x01, 0xAA},
			tcp:  true, wantOK: true, wantChannel: 0x4000, wantPayload: []byte{0xAA}, wantFraming: 4},
		{name: "tcp, more than the padding",
			data: []byte{0x40, 0x00, 0x00, 0x04, 0xAA, 0xBB, 0xCC, 0xDD, 0x00}, tcp: true},
		{name: "udp, more than 3 bytes after the data",
			data: []byte{0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
		{name: "empty data",
			data:   []byte{0x40, 0x00, 0x00, 0x00}, // len=0
			wantOK: true, wantChannel: 0x4000, wantPayload: []byte{}, wantFraming: 4},
		{name: "length beyond buffer", data: []byte{0x40, 0x00, 0x00, 0x05, 0xAA}},
		{name: "channel below range", data: []byte{0x3F, 0xFF, 0x00, 0x00}},
		{name: "RFC 5766 channel 0x5000", // the parser reads it; Tracker.Refine says whether it is one
			data:   []byte{0x50, 0x00, 0x00, 0x01, 0xAA}, // channel 0x5000, len=1
			wantOK: true, wantChannel: 0x5000, wantPayload: []byte{0xAA}, wantFraming: 4},
		{name: "RFC 5766 channel 0x7FFF over tcp",
			data: []byte{0x7F, 0xFF, 0x00, 0x02, 0xAA, 0xBB, 0x00, 0x00}, // len=2, 2 padding
			tcp:  true, wantOK: true, wantChannel: 0x7FFF, wantPayload: []byte{0xAA, 0xBB}, wantFraming: 6},
		{name: "channel above range (RTP first byte)", data: []byte{0x80, 0x00, 0x00, 0x00}},
		{name: "short header", data: []byte{0x40, 0x00, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, payload, framing, ok := parseChannelData(tt.data, tt.tcp, false)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if ch != tt.wantChannel || !bytes.Equal(payload, tt.wantPayload) || framing != tt.wantFraming {
				t.Errorf("got channel %#x payload %x framing %d, want %#x %x %d",
					ch, payload, framing, tt.wantChannel, tt.wantPayload, tt.wantFraming)
			}
			if len(payload)+framing != len(tt.data) {
				t.Errorf("payload %d + framing %d != %d bytes", len(payload), framing, len(tt.data))
			}
		})
	}
}

func TestParseChannelDataAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	b := []byte{0x40, 0x00, 0x00, 0x03, 0xAA, 0xBB, 0xCC, 0x00}
	if n := testing.AllocsPerRun(100, func() { parseChannelData(b, true, false) }); n != 0 {
		t.Errorf("parseChannelData allocates %v times per run", n)
	}
}
